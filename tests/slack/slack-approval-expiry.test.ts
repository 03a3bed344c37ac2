// Issue 9, "approvals that never expire": the expiry sweep closes a card nobody clicked, the run stops or goes
// on as permissions.on_denial says, and the thread is free for the next task.
import { afterEach, describe, expect, it } from 'vitest';
import { text, toolCalls } from '../fakes/openai-server.js';
import type { FakeMessage } from '../fakes/slack/fake-slack-api.js';
import { renderSlackMessage } from '../fakes/slack/render-slack-message.js';
import { CHANNEL, SlackHarness, type SlackHarnessOptions, type SlackMode, USERS } from './slack-harness.js';

const APPROVAL_TTL_MS = 15 * 60_000;

describe.each<SlackMode>(['http', 'socket'])('Slack approvals nobody clicks, over %s', (mode) => {
  let h: SlackHarness;
  afterEach(async () => h?.close());

  /** Alice asks for a restart; the card waits for an approver who never comes. */
  async function waitingCard(options: SlackHarnessOptions) {
    h = await SlackHarness.start({ mode, ...options });
    h.openai.reply(
      toolCalls([{ name: 'restart_service', arguments: { service: 'api' } }], { content: 'stuck' }),
    );
    const mention = await h.mention(USERS.alice, 'restart the api');
    await h.settled();
    const [card] = h.withButton(mention.ts, 'Approve');
    if (!card) throw new Error(`no approval card:\n${h.threadText(mention.ts)}`);
    const runId = /run_[0-9a-f]{16}/.exec(renderSlackMessage(card).text)![0];
    expect((await h.kernel.get(runId)).status).toBe('waiting_for_approval');
    return { threadTs: mention.ts, card, runId };
  }

  function expectExpiredCard(card: FakeMessage) {
    const shown = renderSlackMessage(h.api.message(CHANNEL, card.ts)!);
    expect(shown.buttons).toEqual([]);
    expect(shown.text).toContain('Expired* at 2026-01-01 12:15 UTC: nobody approved');
    expect(h.api.callsTo('chat.update').some((call) => call.args.ts === card.ts)).toBe(true);
  }

  it('on_denial stop: the sweep expires the card, ends the run, and the task queued behind it starts', async () => {
    const { threadTs, card, runId } = await waitingCard({ onDenial: 'stop' });
    // A second task in the same thread waits for the first run.
    h.openai.reply(text('The worker is fine.'));
    await h.mention(USERS.alice, 'check the worker', { threadTs });
    await h.settled();
    expect(h.threadText(threadTs)).toContain(
      "Queued behind Alice's run: it waits for an approval of restart_service.",
    );
    expect(await h.kernel.expirySweep().sweep()).toBe(0);

    h.clock.advance(APPROVAL_TTL_MS + 1_000);
    expect(await h.kernel.expirySweep().sweep()).toBe(1);
    await h.settled();

    expectExpiredCard(card);
    expect((await h.kernel.get(runId)).status).toBe('expired');
    const shown = h.threadText(threadTs);
    expect(shown).toContain(
      'The approval for restart_service expired before anyone decided (at 12:15 UTC), so it was not run. Ask again if it is still needed.',
    );
    expect(shown).toContain('The worker is fine.');
    expect(h.probe.count('restart_service')).toBe(0);
    expect(h.openai.requests).toHaveLength(2);
    expect(await h.kernel.expirySweep().sweep()).toBe(0);
  });

  it('on_denial continue: the sweep expires the card, the thread is told, the run goes on, and the thread is free', async () => {
    const { threadTs, card, runId } = await waitingCard({ onDenial: 'continue' });
    h.openai.reply(text('I could not restart the api: nobody approved in time.'));

    h.clock.advance(APPROVAL_TTL_MS + 1_000);
    expect(await h.kernel.expirySweep().sweep()).toBe(1);
    await h.settled();

    expectExpiredCard(card);
    const run = await h.kernel.get(runId);
    expect(run.status).toBe('finished');
    const shown = h.threadText(threadTs);
    expect(shown).toContain(
      'The approval for restart_service expired before anyone decided (at 12:15 UTC), so it was not run.',
    );
    expect(shown).toContain('I could not restart the api: nobody approved in time.');
    // The model heard it too, as the call's result.
    expect(h.openai.lastRequest!.rawBody).toContain('expired before anyone decided');
    expect(h.probe.count('restart_service')).toBe(0);

    // A new task in the same thread starts at once.
    h.openai.reply(text('The worker is fine.'));
    await h.mention(USERS.alice, 'check the worker', { threadTs });
    await h.settled();
    expect(h.threadText(threadTs)).toContain('The worker is fine.');
    expect(h.threadText(threadTs)).not.toContain('Queued behind');
  });
});
