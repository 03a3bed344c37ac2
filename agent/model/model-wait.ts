// A model call held back by this process's rate limit, as a thread's status line says it.
import type { ModelWait } from './model-port.js';
import { MODEL_RETRY_WORDS } from './model-retry.js';

export type { ModelWait } from './model-port.js';

const REASONS: Record<ModelWait['reason'], string> = {
  rate: 'rate limit',
  in_flight: 'too many calls at once',
  server: 'the server asked to slow down (429)',
};

/** "Waiting for the model: rate limit (2 ahead)"; it begins as a retry's line does, so the terminal shows it. */
export function modelWaitWords(wait: ModelWait): string {
  const place = wait.queued === 0 ? 'next in line' : `${wait.queued} ahead`;
  return `${MODEL_RETRY_WORDS} ${REASONS[wait.reason]} (${place})`;
}
