// The conversation of every scale-bench run, as the fake model plays it: three system_stats calls (a cheap read
// tool the bot ships; a different timeout each step, so the duplicate-call guard never short-cuts one), then the
// final answer. Four model turns, each answered after `delayMs`, like a model that takes 200 ms.
import { type FakeAnswer, type RecordedRequest, text, toolCalls } from '../../tests/fakes/openai-answers.js';

export const SCALE_TURNS_PER_RUN = 4;
export const SCALE_ANSWER = 'The machine looks healthy.';
const TIMEOUTS = [1_000, 1_500, 2_000] as const;

export function scaleAnswer(delayMs: number) {
  return (request: RecordedRequest, index: number): FakeAnswer => {
    const turnsSoFar = (request.body.messages ?? []).filter((message) => message.role === 'assistant').length;
    const timeout = TIMEOUTS[turnsSoFar];
    if (timeout === undefined) return text(SCALE_ANSWER, { delayMs });
    return toolCalls([{ id: `call_${index}`, name: 'system_stats', arguments: { timeout_ms: timeout } }], {
      delayMs,
    });
  };
}
