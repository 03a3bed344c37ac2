// What a model call tells the plan's progress as it goes: its retries, and its waits for the rate limit.
import type { ModelRequest } from '../model/model-port.js';
import type { PlanProgress } from './engine.js';

export type ModelCallProgress = Pick<ModelRequest, 'onRetry' | 'onWaiting' | 'onAdmitted'>;

/** The request's callbacks for a plan's progress; none without one. */
export function modelCallProgress(progress: PlanProgress | undefined): ModelCallProgress {
  if (!progress) return {};
  return {
    onRetry: (retry) => progress.modelRetrying(retry),
    onWaiting: (wait) => progress.modelWaiting(wait),
    onAdmitted: () => progress.modelAdmitted(),
  };
}
