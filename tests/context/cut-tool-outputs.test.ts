// Cutting old tool outputs to summaries: when a batch is due, which outputs go, and what stays untouched.
import { describe, expect, it } from 'vitest';
import { CUT_NOTE, cutContent, cutToolOutputs } from '../../agent/context/cut-tool-outputs.js';
import type { ModelMessage } from '../../agent/model-message.js';

const big = (label: string) => `${label}:${'x'.repeat(2_000)}`;

/** A task, then `count` turns; turn n calls `calls` tools with ids c<n>_<k> and big outputs. */
function transcript(count: number, calls = 1): { messages: ModelMessage[]; summaries: Map<string, string> } {
  const messages: ModelMessage[] = [{ role: 'user', content: 'why is checkout flaky?' }];
  const summaries = new Map<string, string>();
  for (let turn = 1; turn <= count; turn++) {
    const ids = Array.from({ length: calls }, (_, k) => `c${turn}_${k}`);
    messages.push({
      role: 'assistant',
      content: turn === 1 ? 'reading the deploy log first' : null,
      toolCalls: ids.map((id) => ({ id, name: 'log_search', arguments: `{"turn":${turn}}` })),
    });
    for (const id of ids) {
      messages.push({ role: 'tool', toolCallId: id, name: 'log_search', content: big(id) });
      summaries.set(id, `summary of ${id}`);
    }
  }
  return { messages, summaries };
}

const cutIds = (messages: ModelMessage[]) =>
  messages.flatMap((message) =>
    message.role === 'tool' && message.content.includes(CUT_NOTE) ? [message.toolCallId] : [],
  );

describe('cutToolOutputs', () => {
  it('waits until keep + batch turns hold full outputs', () => {
    const { messages, summaries } = transcript(8);
    expect(cutToolOutputs({ messages, summaries, keep: 4, batch: 4 })).toBeUndefined();
  });

  it('then cuts every older output back to the latest keep turns, leaving other messages as they were', () => {
    const { messages, summaries } = transcript(9, 2);
    const cut = cutToolOutputs({ messages, summaries, keep: 4, batch: 4 })!;
    expect(cutIds(cut)).toEqual([
      'c1_0',
      'c1_1',
      'c2_0',
      'c2_1',
      'c3_0',
      'c3_1',
      'c4_0',
      'c4_1',
      'c5_0',
      'c5_1',
    ]);
    const first = cut.find((message) => message.role === 'tool' && message.toolCallId === 'c1_0');
    expect(first).toEqual({
      role: 'tool',
      toolCallId: 'c1_0',
      name: 'log_search',
      content: cutContent('log_search', 'summary of c1_0'),
    });
    expect(cut.filter((message) => message.role !== 'tool')).toEqual(
      messages.filter((message) => message.role !== 'tool'),
    );
    // The input is not changed: the caller decides to keep the result.
    expect(cutIds(messages)).toEqual([]);
  });

  it('does not cut again until another batch has piled up', () => {
    const { messages, summaries } = transcript(9);
    let current = cutToolOutputs({ messages, summaries, keep: 4, batch: 4 })!;
    const more = transcript(14);
    for (const message of more.messages.slice(current.length)) current = [...current, message];
    expect(
      cutToolOutputs({ messages: current.slice(0, -2), summaries: more.summaries, keep: 4, batch: 4 }),
    ).toBe(undefined);
    const next = cutToolOutputs({ messages: current, summaries: more.summaries, keep: 4, batch: 4 })!;
    expect(cutIds(next)).toEqual([
      'c1_0',
      'c2_0',
      'c3_0',
      'c4_0',
      'c5_0',
      'c6_0',
      'c7_0',
      'c8_0',
      'c9_0',
      'c10_0',
    ]);
    // What was cut before is repeated exactly, so the prompt only changes from the first newly cut output on.
    const firstNew = next.findIndex((message) => message.role === 'tool' && message.toolCallId === 'c6_0');
    expect(next.slice(0, firstNew)).toEqual(current.slice(0, firstNew));
  });

  it('leaves outputs alone that have no summary or are already short', () => {
    const { messages, summaries } = transcript(9);
    summaries.delete('c1_0');
    const short = messages.findIndex((message) => message.role === 'tool' && message.toolCallId === 'c2_0');
    messages[short] = { role: 'tool', toolCallId: 'c2_0', name: 'log_search', content: 'no lines' };
    // Two turns no longer count as full, so 7 of 9 do: not more than keep + batch.
    expect(cutToolOutputs({ messages, summaries, keep: 4, batch: 4 })).toBeUndefined();
    const cut = cutToolOutputs({ messages, summaries, keep: 2, batch: 4 })!;
    expect(cutIds(cut)).toEqual(['c3_0', 'c4_0', 'c5_0', 'c6_0', 'c7_0']);
  });
});
