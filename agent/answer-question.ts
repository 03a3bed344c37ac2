// How a person's answer fits the question a run asked: as the ask_user result, or as a call's missing
// arguments — checked against the tool's input, and asked again (at most three times) when it does not fit.
import { applyAnswer, missingFieldChoices, missingFieldsQuestion } from './missing-arguments.js';
import type { Principal } from './principal.js';
import type { Run } from './run.js';
import type { AnswerTake } from './run-machine.js';
import type { ToolRegistry } from './tool-registry.js';

/** A missing-argument question is asked again at most this many times before the model gets the error. */
const MAX_ANSWER_ATTEMPTS = 3;

/**
 * One rule for every surface (chat replies, `opsbot answer`, the CLI's prompt): an answer that is exactly one of
 * the choices is that choice; otherwise a bare number that is a choice's position (1-based, as listed) picks
 * that choice; anything else is free text, as typed.
 */
export function answerFromChoices(choices: readonly string[], text: string): string {
  const typed = text.trim();
  if (choices.includes(typed)) return typed;
  if (/^\d+$/.test(typed)) {
    const position = Number(typed);
    if (position >= 1 && position <= choices.length) return choices[position - 1]!;
  }
  return typed;
}

export function interpretAnswer(
  run: Extract<Run, { status: 'waiting_for_user' }>,
  answer: string,
  principal: Principal,
  registry: ToolRegistry,
): AnswerTake {
  const { call, missingFields } = run.question;
  if (missingFields.length === 0) {
    return {
      kind: 'tool_result',
      content: JSON.stringify({ tool: call.name, ok: true, answer, answered_by: principal.displayName }),
    };
  }
  const spec = registry.spec(call.name);
  const tool = registry.get(call.name);
  if (!spec || !tool) return { kind: 'arguments', args: call.args ?? {} };
  const args = applyAnswer(spec, missingFields, call.args ?? {}, answer);
  const check = tool.input.safeParse(args);
  if (check.success || run.askAttempts + 1 >= MAX_ANSWER_ATTEMPTS) return { kind: 'arguments', args };
  const problem = check.error.issues
    .map((issue) => `${issue.path.join('.') || 'value'}: ${issue.message}`)
    .join('; ');
  return {
    kind: 'ask_again',
    args,
    question: `That answer does not fit (${problem}). ${missingFieldsQuestion(spec, missingFields)}`,
    choices: missingFieldChoices(spec, missingFields),
  };
}
