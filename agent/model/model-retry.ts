// A model call being retried: which attempt comes next, why the last one failed, and how a thread says so.
import { STATUS_CODES } from 'node:http';
import { formatDuration } from '../duration-text.js';
import type { ModelRetry } from './model-port.js';

export type { ModelRetry } from './model-port.js';

/** The shared status while the model is retried, honest about what it waits for. */
/** How a retry's status line begins, so that a surface without status lines (the terminal) can still show it. */
export const MODEL_RETRY_WORDS = 'Waiting for the model:';

export function modelRetryWords(retry: ModelRetry): string {
  return `${MODEL_RETRY_WORDS} ${retry.problem}, so trying again (attempt ${retry.attempt} of ${retry.attempts})`;
}

/** The openai SDK's own rule for retrying an answer (client.js shouldRetry), so we announce exactly its retries. */
export function sdkRetriesResponse(response: Response): boolean {
  const header = response.headers.get('x-should-retry');
  if (header === 'true') return true;
  if (header === 'false') return false;
  return (
    response.status === 408 || response.status === 409 || response.status === 429 || response.status >= 500
  );
}

/**
 * How long an answer asks to wait, read as the SDK reads it (client.js retryRequest): `retry-after-ms`, else
 * `retry-after` in seconds or as a date; undefined without either.
 */
export function retryAfterMs(headers: Headers, now: number): number | undefined {
  const millis = Number.parseFloat(headers.get('retry-after-ms') ?? '');
  if (!Number.isNaN(millis)) return millis;
  const after = headers.get('retry-after');
  if (!after) return undefined;
  const seconds = Number.parseFloat(after);
  if (!Number.isNaN(seconds)) return seconds * 1000;
  const at = Date.parse(after);
  return Number.isNaN(at) ? undefined : at - now;
}

export function answeredProblem(status: number): string {
  if (status === 429) return 'the model server is limiting requests (429)';
  return `the model server answered ${status} ${STATUS_CODES[status] ?? 'error'}`;
}

export function unansweredProblem(
  timedOut: boolean,
  timeoutMs: number,
  baseURL: string,
  proxyUrl?: string,
): string {
  if (timedOut) return `no answer within ${formatDuration(timeoutMs)}`;
  return `could not reach ${baseURL}${proxyUrl ? ` through the proxy ${proxyUrl}` : ''}`;
}
