// The Cancel run button in Slack: its clicks were not routed (the action id was missing from the listener's
// pattern), so Bolt answered 404 and the run went on. A click on a working status line stops the run at its next
// step, for the requester; someone else is told why not.
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool } from '../../agent/tool.js';
import { text, toolCalls } from '../fakes/openai-server.js';
import { renderSlackMessage } from '../fakes/slack/render-slack-message.js';
import { CHANNEL, SlackHarness, USERS } from './slack-harness.js';

/** A read that waits until the test lets it finish, so a click lands while the run is at work. */
function gatedCheck() {
  let release: () => void = () => {};
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  let started: () => void = () => {};
  const running = new Promise<void>((resolve) => {
    started = resolve;
  });
  const tool = defineTool({
    name: 'slow_check',
    description: 'Check the box slowly. Use when asked to check slowly.',
    input: z.object({}),
    risk: 'read',
    execute: async () => {
      started();
      await gate;
      return { ok: true, summary: 'checked' };
    },
  });
  return { tool, release, running };
}

async function until(test: () => boolean): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (!test()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe('Slack Cancel run button', () => {
  let h: SlackHarness;
  afterEach(async () => h?.close());

  it('cancels the run from its working status line; another person is told they may not', async () => {
    const check = gatedCheck();
    h = await SlackHarness.start({ mode: 'http', tools: () => [check.tool] });
    h.openai.reply(toolCalls([{ name: 'slow_check', arguments: {} }]), text('All checked.'));
    const mention = await h.mention(USERS.alice, 'check the box slowly');
    await check.running;
    const [status] = h.withButton(mention.ts, 'Cancel run');
    if (!status) throw new Error(`no Cancel run button in the thread:\n${h.threadText(mention.ts)}`);
    expect(renderSlackMessage(status).text).toContain('Working on it…');

    // Carol has no role here: not hers to cancel. (Not settled(): that would wait for the held check.)
    const carol = await h.click(USERS.carol, status, 'Cancel run');
    expect(carol.status).toBe(200);
    await until(() => h.responsesText().length === 1);
    expect(h.responsesText()[0]).toMatch(/^Only Alice \(who asked\) or an admin can cancel run run_\w+\.$/);

    const alice = await h.click(USERS.alice, status, 'Cancel run');
    expect(alice.status).toBe(200);
    await until(() => h.responsesText().length === 2);
    check.release();
    await h.settled();
    const shown = renderSlackMessage(h.api.message(CHANNEL, status.ts)!);
    expect(shown.text).toContain('Cancelled by Alice');
    expect(shown.buttons).toEqual([]);
    expect(h.threadText(mention.ts)).not.toContain('All checked.');
  });
});
