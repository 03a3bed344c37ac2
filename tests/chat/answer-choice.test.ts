// The router's side of an answer button: a choice number becomes the choice's text, or a reason it cannot.
import { describe, expect, it } from 'vitest';
import { QUESTION_CLOSED, resolveAnswerChoice } from '../../bot/chat/answer-choice.js';

describe('resolveAnswerChoice', () => {
  it('gives the text of the chosen choice', () => {
    expect(resolveAnswerChoice(['staging', 'prod'], 1)).toEqual({ ok: true, answer: 'prod' });
  });

  it('refuses a click on a question that is no longer open', () => {
    expect(resolveAnswerChoice(undefined, 0)).toEqual({ ok: false, reason: QUESTION_CLOSED });
  });

  it('refuses a number the question never offered', () => {
    for (const index of [2, -1, 0.5, Number.NaN, 1e9]) {
      expect(resolveAnswerChoice(['staging', 'prod'], index)).toMatchObject({ ok: false });
    }
    expect(resolveAnswerChoice([], 0)).toMatchObject({ ok: false });
  });
});
