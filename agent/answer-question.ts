// Takes a person's answer into a waiting run: as the ask_user result, or as the missing arguments of a call.
import { applyAnswer, missingFieldChoices, missingFieldsQuestion } from './missing-arguments.js';
import type { Principal } from './principal.js';
import type { Pending, Run } from './run.js';
import type { ToolRegistry } from './tool-registry.js';

/** A missing-argument question is asked again at most this many times before the model gets the error. */
const MAX_ANSWER_ATTEMPTS = 3;

export type AnswerOutcome =
  | { kind: 'continue' }
  | { kind: 'ask_again'; question: string; choices: string[]; fields: string[] };

export function takeAnswer(
  run: Run,
  pending: Extract<Pending, { kind: 'question' }>,
  answer: string,
  principal: Principal,
  registry: ToolRegistry,
): AnswerOutcome {
  const { call, missingFields } = pending;
  if (missingFields.length === 0) {
    run.messages.push({
      role: 'tool',
      toolCallId: call.id,
      name: call.name,
      content: JSON.stringify({ tool: call.name, ok: true, answer, answered_by: principal.displayName }),
    });
    run.queue.shift();
    return { kind: 'continue' };
  }
  const spec = registry.spec(call.name);
  const tool = registry.get(call.name);
  if (!spec || !tool) return { kind: 'continue' };
  const args = applyAnswer(spec, missingFields, call.args ?? {}, answer);
  run.queue[0] = { ...call, args, rawArguments: JSON.stringify(args) };
  const check = tool.input.safeParse(args);
  if (check.success || run.askAttempts + 1 >= MAX_ANSWER_ATTEMPTS) {
    run.askAttempts = 0;
    return { kind: 'continue' };
  }
  run.askAttempts += 1;
  const problem = check.error.issues
    .map((issue) => `${issue.path.join('.') || 'value'}: ${issue.message}`)
    .join('; ');
  return {
    kind: 'ask_again',
    question: `That answer does not fit (${problem}). ${missingFieldsQuestion(spec, missingFields)}`,
    choices: missingFieldChoices(spec, missingFields),
    fields: missingFields,
  };
}
