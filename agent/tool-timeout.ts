// The reason a tool call's signal aborts when its time is up, so a tool can tell a timeout from a cancel.
import { formatDuration } from './duration-text.js';

/**
 * The abort reason of a call whose time ran out, carrying the time it was given. Named `TimeoutError` as
 * `AbortSignal.timeout()`'s reason is, so libraries that look at the name treat it as a timeout too.
 */
export class ToolTimeoutError extends Error {
  override readonly name = 'TimeoutError';
  constructor(readonly timeoutMs: number) {
    super(`timed out after ${formatDuration(timeoutMs)}`);
  }
}

export function isToolTimeout(reason: unknown): reason is ToolTimeoutError {
  return reason instanceof ToolTimeoutError;
}
