// The one conversation every benchmark run has: three read-tool steps, then a final answer (four model turns).

import type { Principal } from '../agent/principal.js';
import type { FakeAnswer, RecordedRequest } from '../tests/fakes/openai-answers.js';
import { text, toolCalls } from '../tests/fakes/openai-answers.js';

export const TASK = 'Are the api, worker and database services healthy?';
/** Who asks, in every kernel bench: an operator at the terminal. */
export const BENCH_PRINCIPAL: Principal = {
  platform: 'cli',
  userId: 'bench',
  displayName: 'Bench',
  roles: ['operator'],
  groups: [],
};
export const TOOL_NAME = 'read_status';
export const TOOL_STEPS = 3;
export const TURNS_PER_RUN = TOOL_STEPS + 1;
export const FINAL_ANSWER = 'All three services are healthy.';
/** A different argument each step, so the kernel's duplicate-call guard never short-cuts a real call. */
export const SERVICES = ['api', 'worker', 'database'] as const;

/**
 * Answers from the request alone (how many assistant turns it already holds), so the fake keeps no per-run
 * state and any number of runs can interleave.
 */
export function scriptedAnswer(request: RecordedRequest, index: number, delayMs = 0): FakeAnswer {
  const turnsSoFar = (request.body.messages ?? []).filter((message) => message.role === 'assistant').length;
  const service = SERVICES[turnsSoFar];
  const late = delayMs > 0 ? { delayMs } : {};
  if (service === undefined) return text(FINAL_ANSWER, late);
  return toolCalls([{ id: `call_${index}`, name: TOOL_NAME, arguments: { service } }], late);
}
