// One rule for a typed answer to a question with choices, on every surface: chat, `opsbot run`, `opsbot answer`.
import { describe, expect, it } from 'vitest';
import { answerFromChoices } from '../../agent/answer-question.js';

describe('answerFromChoices', () => {
  it('reads a bare number as the choice at that position, as listed', () => {
    expect(answerFromChoices(['/', '/tmp'], '2')).toBe('/tmp');
    expect(answerFromChoices(['/', '/tmp'], ' 1 ')).toBe('/');
  });

  it('keeps an answer that is itself a choice, even a number', () => {
    expect(answerFromChoices(['5', '2'], '2')).toBe('2');
  });

  it('sends anything else as typed: numbers out of range, other text, and questions without choices', () => {
    expect(answerFromChoices(['/', '/tmp'], '3')).toBe('3');
    expect(answerFromChoices(['/', '/tmp'], '0')).toBe('0');
    expect(answerFromChoices(['/', '/tmp'], '2 please')).toBe('2 please');
    expect(answerFromChoices([], '2')).toBe('2');
  });
});
