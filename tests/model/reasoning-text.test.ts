// withoutThinking drops the reasoning a model writes before its reply (<think>…</think>), and leaves other replies be.
import { describe, expect, it } from 'vitest';
import { withoutThinking } from '../../agent/model/reasoning-text.js';

describe('withoutThinking', () => {
  it('drops a leading <think> block, and any more that follow it', () => {
    expect(withoutThinking('<think>\nThe user wants the api.\n</think>\n\nThe api is up.')).toEqual({
      text: 'The api is up.',
      thought: true,
    });
    expect(withoutThinking('  <think>a</think>\n<think>b</think>Done.')).toEqual({
      text: 'Done.',
      thought: true,
    });
  });

  it('drops the text before a </think> with no opening tag (the template opened it in the prompt)', () => {
    expect(withoutThinking('Let me see what they asked.\n</think>\n\nAll good.')).toEqual({
      text: 'All good.',
      thought: true,
    });
  });

  it('keeps nothing of a reply that is only thinking, closed or cut off', () => {
    expect(withoutThinking('<think>hmm, maybe <tool_call>{"name": "x"}</tool_call>')).toEqual({
      text: null,
      thought: true,
    });
    expect(withoutThinking('<think>all reasoning</think>\n  ')).toEqual({ text: null, thought: true });
  });

  it('leaves a reply without reasoning exactly as it is, a <think> later in the text too', () => {
    expect(withoutThinking('  All good.\n')).toEqual({ text: '  All good.\n', thought: false });
    expect(withoutThinking('Use <think> tags to reason.')).toEqual({
      text: 'Use <think> tags to reason.',
      thought: false,
    });
    expect(withoutThinking(null)).toEqual({ text: null, thought: false });
  });
});
