// A choice number from an answer button, turned into the choice's text from the question the run waits on.

export type AnswerChoice = { ok: true; answer: string } | { ok: false; reason: string };

export const QUESTION_CLOSED = 'This question is no longer open: it was answered, or it expired.';

/**
 * `choices` are those of the question the run is waiting on now, or undefined when it waits on none. A click on
 * a question that has closed, or an index it never offered, is refused with a reason for the person.
 */
export function resolveAnswerChoice(choices: readonly string[] | undefined, index: number): AnswerChoice {
  if (choices === undefined) return { ok: false, reason: QUESTION_CLOSED };
  if (!Number.isInteger(index) || index < 0 || !Object.hasOwn(choices, index)) {
    return { ok: false, reason: 'That is not one of the choices this question offers; pick again or reply.' };
  }
  return { ok: true, answer: choices[index]! };
}
