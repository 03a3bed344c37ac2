// Issue 9's cancel defects through real Bolt: `/ops cancel` sticks past the lease and both sweeps, also when
// the run's worker process died, and a late click on a cancelled run's card is refused and runs nothing.
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_RUN_LEASE_MS } from '../../agent/kernel-options.js';
import { withResolvedRoles } from '../../agent/policy/resolve-roles.js';
import { text, toolCalls } from '../fakes/openai-server.js';
import { renderSlackMessage } from '../fakes/slack/render-slack-message.js';
import { CHANNEL, SlackHarness, type SlackMode, USERS } from './slack-harness.js';

/** The first model call waits until the test releases it; any later call answers at once. */
function holdModel(h: SlackHarness) {
  let release!: () => void;
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  let called!: () => void;
  const inModel = new Promise<void>((resolve) => {
    called = resolve;
  });
  h.openai.respond(async (_request, index) => {
    if (index === 0) {
      called();
      await released;
    }
    return text('All done: the api is healthy.');
  });
  return { inModel, release };
}

/** Every rendering of every bot message in the thread, oldest first: a "Done" shown once counts. */
function everShown(h: SlackHarness, threadTs: string): string {
  return h.api
    .thread(CHANNEL, threadTs)
    .flatMap((message) => [...message.history, message].map((version) => renderSlackMessage(version).text))
    .join('\n');
}

function runIdIn(shown: string): string {
  const runId = /run_[0-9a-f]{16}/.exec(shown)?.[0];
  if (!runId) throw new Error(`no run id in the thread:\n${shown}`);
  return runId;
}

/** Past the run lease the harness's kernel takes, so an orphaned run would be recovered. */
const PAST_THE_LEASE_MS = DEFAULT_RUN_LEASE_MS + 1_000;

describe.each<SlackMode>(['http', 'socket'])('Slack /ops cancel over %s', (mode) => {
  let h: SlackHarness;
  afterEach(async () => h?.close());

  it('cancels a working run for good: past its lease, recovery and the expiry sweep, the model is not called again', async () => {
    h = await SlackHarness.start({ mode });
    const model = holdModel(h);
    const mention = await h.mention(USERS.alice, 'check the api');
    await model.inModel;
    const runId = runIdIn(h.threadText(mention.ts));

    await h.command(USERS.alice, `cancel ${runId}`);
    await h.settled();
    expect(h.responsesText()).toEqual([`Cancelled ${runId}.`]);
    expect((await h.kernel.get(runId)).status).toBe('cancelled');

    // The model answers after all; then the lease runs out and both sweeps pass.
    model.release();
    await h.settled();
    h.clock.advance(PAST_THE_LEASE_MS);
    expect(await h.kernel.recover()).toEqual({ continued: 0, outcomeUnknown: 0 });
    expect(await h.kernel.expirySweep().sweep()).toBe(0);
    await h.settled();

    expect((await h.kernel.get(runId)).status).toBe('cancelled');
    expect(h.openai.requests).toHaveLength(1);
    const shown = everShown(h, mention.ts);
    expect(shown).toContain('Cancelled by Alice');
    expect(shown).not.toMatch(/Done|All done/);
    const status = h.thread(mention.ts).find((message) => message.text.includes(runId));
    expect(status?.text).toContain('Cancelled by Alice');
  });

  it("closes a cancelled run's approval card, and refuses a click on it 16 minutes later", async () => {
    h = await SlackHarness.start({ mode });
    h.openai.reply(
      toolCalls([{ name: 'restart_service', arguments: { service: 'api' } }], { content: 'stuck' }),
    );
    h.openai.respond(() => text('This answer must never be asked for.'));
    const mention = await h.mention(USERS.alice, 'restart the api');
    await h.settled();
    const [card] = h.withButton(mention.ts, 'Approve');
    if (!card) throw new Error(`no approval card:\n${h.threadText(mention.ts)}`);
    // Bob's client keeps showing the card as it was posted, buttons and all.
    const bobsCopy = structuredClone(card);
    const runId = runIdIn(renderSlackMessage(card).text);

    await h.command(USERS.alice, `cancel ${runId}`);
    await h.settled();
    expect(h.responsesText()).toEqual([`Cancelled ${runId}.`]);
    const closed = renderSlackMessage(h.api.message(CHANNEL, card.ts)!);
    expect(closed.buttons).toEqual([]);
    expect(closed.text).toContain('Cancelled* by Alice at 2026-01-01 12:00 UTC');
    expect(closed.text).toContain('the run was cancelled, so nothing was run');

    // Bob clicks Approve on his stale copy, after the approval would have expired anyway.
    h.clock.advance(16 * 60_000);
    await h.click(USERS.bob, bobsCopy, 'Approve');
    await h.settled();
    expect(h.responsesText().at(-1)).toBe(
      'This request was withdrawn: the run was cancelled by Alice at 2026-01-01 12:00:00 UTC, so nothing was run.',
    );
    expect(h.api.responses.at(-1)!.body).toMatchObject({ response_type: 'ephemeral' });
    expect(await h.kernel.expirySweep().sweep()).toBe(0);
    expect(await h.kernel.recover()).toEqual({ continued: 0, outcomeUnknown: 0 });
    await h.settled();

    const run = await h.kernel.get(runId);
    expect(run.status).toBe('cancelled');
    expect(run.status === 'cancelled' && run.cancelled).toEqual({
      by: 'Alice',
      at: Date.UTC(2026, 0, 1, 12, 0),
    });
    expect(h.probe.count('restart_service')).toBe(0);
    expect(h.openai.requests).toHaveLength(1);
    expect(renderSlackMessage(h.api.message(CHANNEL, card.ts)!).buttons).toEqual([]);
    expect(everShown(h, mention.ts)).not.toMatch(/Expired|Approved by/);
  });
});

describe('Slack /ops cancel of a run whose worker process died or froze', () => {
  let h: SlackHarness;
  afterEach(async () => h?.close());

  it('is cancelled by another process once the lease lapses, and stays cancelled when the old worker wakes', async () => {
    h = await SlackHarness.start();
    const model = holdModel(h);
    // Another replica on the same store steps Alice's run and freezes in the model call, its lease held: until
    // it wakes at the end, it is indistinguishable from a process that died.
    const frozen = h.newKernel({ runLeaseMs: 60_000 });
    const threadTs = h.api.nextTs();
    const runId = await frozen.start({
      text: 'check the api',
      principal: withResolvedRoles(h.settings.permissions, {
        platform: 'slack',
        userId: USERS.alice,
        displayName: 'Alice',
        roles: [],
        groups: [],
      }),
      conversation: { platform: 'slack', channelId: CHANNEL, channelName: 'ops', threadId: threadTs },
    });
    await model.inModel;
    expect(await h.kernel.store.holder(`run-lease:${runId}`)).toBeDefined();

    await h.command(USERS.alice, `cancel ${runId}`);
    await h.settled();
    expect(h.responsesText()).toEqual([`${runId} will stop at its next step (run ${runId} is working).`]);

    // The frozen worker's lease lapses; this process's recovery takes the run over and finds the cancel.
    h.clock.advance(60_001);
    expect(await h.kernel.recover()).toEqual({ continued: 1, outcomeUnknown: 0 });
    await h.settled();
    expect((await h.kernel.get(runId)).status).toBe('cancelled');
    expect(await h.kernel.recover()).toEqual({ continued: 0, outcomeUnknown: 0 });
    expect(await h.kernel.expirySweep().sweep()).toBe(0);

    // The old worker wakes with the model's answer: it no longer holds the run, so it changes nothing.
    model.release();
    await frozen.idle();
    await h.settled();
    expect((await h.kernel.get(runId)).status).toBe('cancelled');
    expect(h.openai.requests).toHaveLength(1);
    const shown = everShown(h, threadTs);
    expect(shown).toContain('Cancelled by Alice');
    expect(shown).not.toMatch(/Done|All done/);
  });
});
