// The two-person rule in Slack: the first approval shows on the card, which keeps its buttons; the second runs it.
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool } from '../../agent/tool.js';
import { text, toolCalls } from '../fakes/openai-server.js';
import { renderSlackMessage } from '../fakes/slack/render-slack-message.js';
import type { ToolProbe } from '../kernel/harness.js';
import { CHANNEL, SlackHarness, USERS } from './slack-harness.js';

const deleteVolume = (probe: ToolProbe) =>
  defineTool({
    name: 'delete_volume',
    description: 'Delete a storage volume. Use only when asked to delete one. Cannot be undone.',
    input: z.object({ volume: z.string().describe('The volume to delete') }),
    risk: 'danger',
    approvals: 2,
    execute: (_ctx, input) =>
      probe.track('delete_volume', input, async () => ({ ok: true, summary: `deleted ${input.volume}` })),
  });

describe('Slack approval cards under the two-person rule', () => {
  let h: SlackHarness;
  afterEach(async () => h?.close());

  it('shows "1 of 2 approvals" after the first click, tells a second click by the same person, and runs at the second approver', async () => {
    h = await SlackHarness.start({ mode: 'http', tools: (probe) => [deleteVolume(probe)] });
    h.openai.reply(
      toolCalls([{ name: 'delete_volume', arguments: { volume: 'vol-1' } }], { content: 'as asked' }),
      text('Deleted vol-1.'),
    );
    const mention = await h.mention(USERS.alice, 'delete vol-1');
    await h.settled();
    const [card] = h.withButton(mention.ts, 'Approve');
    if (!card) throw new Error(`no approval card in the thread:\n${h.threadText(mention.ts)}`);

    await h.click(USERS.bob, card, 'Approve');
    await h.settled();
    const counted = renderSlackMessage(h.api.message(CHANNEL, card.ts)!);
    expect(counted.text).toContain('1 of 2 approvals: Bob Builder');
    expect(counted.buttons).toEqual(['Approve', 'Deny', 'Cancel run']);
    expect(h.probe.count('delete_volume')).toBe(0);
    // Bob is told, privately, that his approval counted and one more is needed.
    expect(h.responsesText().at(-1)).toMatch(
      /^Approved by Bob Builder: 1 of 2 approvals\. It needs one more approver/,
    );

    await h.click(USERS.bob, card, 'Approve');
    await h.settled();
    expect(h.responsesText().join('\n')).toContain(
      'You have approved this already; it needs one more approver.',
    );
    expect(h.probe.count('delete_volume')).toBe(0);

    await h.click(USERS.dave, card, 'Approve');
    await h.settled();
    expect(h.probe.count('delete_volume')).toBe(1);
    const decided = renderSlackMessage(h.api.message(CHANNEL, card.ts)!);
    expect(decided.buttons).toEqual([]);
    expect(decided.text).toContain('Bob Builder and Dave');
    expect(h.threadText(mention.ts)).toContain('Deleted vol-1.');
  });
});
