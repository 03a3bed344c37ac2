// The kernel's words to the model on a run's last turn, saying why it must answer now: the same for every engine
// that asks a model.

import type { ModelUsage } from '../model/model-port.js';
import { renderPrompt } from '../prompts.js';
import type { Run } from '../run.js';
import type { WrapUp } from '../run-progress.js';

export function wrapUpPrompt(wrapUp: WrapUp): string {
  const why =
    wrapUp.reason === 'step_limit'
      ? `This is the last step this run may take (limits.max_steps is ${wrapUp.maxSteps}).`
      : 'The requester asked you to stop here.';
  return renderPrompt('wrapUp', { why });
}

/** One model call, counted in the run's usage. */
export function countModelCall(run: Run, usage: ModelUsage): void {
  run.usage.modelCalls += 1;
  run.usage.promptTokens += usage.promptTokens;
  run.usage.completionTokens += usage.completionTokens;
}
