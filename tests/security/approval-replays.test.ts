// Attacks that replay or re-aim an approval click through the real Slack adapter (Bolt over HTTP, fake Slack):

// the same payload twice, an id from another step or run, a click on a decided or expired card, and an approval
// whose call was changed after the card was posted. Each runs the action at most once and tells the clicker why.
import { afterEach, describe, expect, it } from 'vitest';
import type { Run } from '../../agent/run.js';
import type { Store } from '../../agent/store/store.js';
import { storeKeys } from '../../agent/store/store-keys.js';
import { CARD_BUTTONS } from '../approvals/card-buttons.js';
import { text, toolCalls } from '../fakes/openai-server.js';
import type { FakeMessage } from '../fakes/slack/fake-slack-api.js';
import { renderSlackMessage } from '../fakes/slack/render-slack-message.js';
import { blockActions, buttonsOf } from '../fakes/slack/slack-payload-builders.js';
import { FORM_CONTENT_TYPE, formBody, postSigned } from '../fakes/slack/slack-signing.js';
import { CHANNEL, SIGNING_SECRET, SlackHarness, USERS } from '../slack/slack-harness.js';

let h: SlackHarness;
afterEach(async () => h?.close());

/** Alice asks for a restart; with `answer`, the model's reply after the call is queued too. */
async function requestRestart(
  service: string,
  answer = true,
): Promise<{ threadTs: string; card: FakeMessage }> {
  h.openai.reply(toolCalls([{ name: 'restart_service', arguments: { service } }]));
  if (answer) h.openai.reply(text(`Restarted ${service}.`));
  const mention = await h.mention(USERS.alice, `restart ${service}`);
  await h.settled();
  const [card] = h.withButton(mention.ts, 'Approve');
  if (!card) throw new Error(`no approval card:\n${h.threadText(mention.ts)}`);
  return { threadTs: mention.ts, card };
}

/** A block_actions payload as Slack builds it, optionally carrying another card's button value. */
function clickPayload(user: string, card: FakeMessage, label: string, value?: string, n = 1) {
  const button = buttonsOf(card).find((candidate) => candidate.text.text === label)!;
  return blockActions({
    user,
    message: card,
    button: value ? { ...button, value } : button,
    channelName: 'ops',
    triggerId: `replay-${n}`,
    actionTs: `${Math.floor(h.clock.now() / 1000)}.00000${n}`,
    responseUrl: h.api.responseUrl(`replay-${n}`),
  });
}

function deliver(payload: unknown, retryNum?: number) {
  return postSigned(h.eventsUrl, formBody({ payload: JSON.stringify(payload) }), {
    secret: SIGNING_SECRET,
    contentType: FORM_CONTENT_TYPE,
    ...(retryNum
      ? { headers: { 'x-slack-retry-num': String(retryNum), 'x-slack-retry-reason': 'http_timeout' } }
      : {}),
  });
}

const approveValue = (card: FakeMessage) =>
  buttonsOf(card).find((button) => button.text.text === 'Approve')!.value as string;
const told = () => h.responsesText().join('\n');

describe('approval replays (Slack over HTTP)', () => {
  it('attack: the same approve payload delivered again with Slack retry headers runs the action once', async () => {
    h = await SlackHarness.start({ mode: 'http' });
    const { card } = await requestRestart('api');
    const payload = clickPayload(USERS.bob, card, 'Approve');
    const second = clickPayload(USERS.bob, card, 'Approve', undefined, 2);
    expect((await deliver(payload)).status).toBe(200);
    await h.settled();
    expect((await deliver(payload, 1)).status).toBe(200);
    await Promise.all([deliver(payload, 2), deliver(payload, 3)]);
    await h.settled();
    expect(h.probe.calls).toEqual([{ tool: 'restart_service', args: { service: 'api' } }]);
    // The retries are the same delivery (same action_ts), dropped as duplicates; the card says who approved.
    expect(renderSlackMessage(h.api.message(CHANNEL, card.ts)!).text).toMatch(/Approved\* by Bob Builder/);
    // A second, distinct click on the same card is told why nothing more happens.
    await deliver(second);
    await h.settled();
    expect(h.probe.count('restart_service')).toBe(1);
    expect(told()).toMatch(/Already approved by Bob Builder/);
  });

  it('attack: a decided card clicked again (Approve, then Deny, by another approver) changes nothing', async () => {
    h = await SlackHarness.start({ mode: 'http' });
    const { card } = await requestRestart('api');
    const again = clickPayload(USERS.dave, card, 'Approve', undefined, 2);
    const deny = clickPayload(USERS.dave, card, 'Deny', undefined, 3);
    await h.click(USERS.bob, card, 'Approve');
    await h.settled();
    await deliver(again);
    await deliver(deny);
    await h.settled();
    expect(h.probe.count('restart_service')).toBe(1);
    expect(told()).toMatch(/Already approved by Bob Builder/);
    expect(renderSlackMessage(h.api.message(CHANNEL, card.ts)!).text).toMatch(/Approved/);
  });

  it("attack: an earlier step's approval replayed against the run's next approval does not run the next call", async () => {
    h = await SlackHarness.start({ mode: 'http' });
    h.openai.reply(
      toolCalls([{ name: 'restart_service', arguments: { service: 'api' } }]),
      toolCalls([{ name: 'restart_service', arguments: { service: 'worker' } }]),
      text('done'),
    );
    const mention = await h.mention(USERS.alice, 'restart api then worker');
    await h.settled();
    const [first] = h.withButton(mention.ts, 'Approve');
    const firstClick = clickPayload(USERS.bob, first!, 'Approve');
    const firstValue = approveValue(first!);
    const firstTs = first!.ts;
    await deliver(firstClick);
    await h.settled();
    const second = h.withButton(mention.ts, 'Approve').find((card) => card.ts !== firstTs)!;
    expect(renderSlackMessage(second).text).toContain('worker');
    // The first click again, and the first card's id posted from the second card.
    await deliver(firstClick, 1);
    await deliver(clickPayload(USERS.bob, second, 'Approve', firstValue, 2));
    await h.settled();
    expect(h.probe.calls).toEqual([{ tool: 'restart_service', args: { service: 'api' } }]);
    expect(renderSlackMessage(h.api.message(CHANNEL, second.ts)!).buttons).toEqual(CARD_BUTTONS);
    expect(told()).toMatch(/Already approved by Bob Builder/);
  });

  it("attack: one run's approval id posted from another run's card approves only the call it was made for", async () => {
    h = await SlackHarness.start({ mode: 'http' });
    const api = await requestRestart('api', false);
    const worker = await requestRestart('worker', false);
    h.openai.reply(text('Restarted api.'));
    await deliver(clickPayload(USERS.bob, worker.card, 'Approve', approveValue(api.card)));
    await h.settled();
    // The id is the capability: it ran the api restart it was bound to, and the worker card still waits.
    expect(h.probe.calls).toEqual([{ tool: 'restart_service', args: { service: 'api' } }]);
    expect(renderSlackMessage(h.api.message(CHANNEL, worker.card.ts)!).buttons).toEqual(CARD_BUTTONS);
    // An id that was never issued runs nothing and says so.
    await deliver(clickPayload(USERS.bob, worker.card, 'Approve', 'approve:apv_AAAAAAAAAAAAAAAAAAAAAA', 2));
    await h.settled();
    expect(h.probe.count('restart_service')).toBe(1);
    expect(told()).toMatch(/There is no approval apv_AAAAAAAAAAAAAAAAAAAAAA\. Check the id/);
  });

  it('attack: a click on an expired card runs nothing and tells the clicker it expired', async () => {
    h = await SlackHarness.start({ mode: 'http' });
    const { card } = await requestRestart('api');
    const payload = clickPayload(USERS.bob, card, 'Approve');
    const later = clickPayload(USERS.dave, card, 'Approve', undefined, 2);
    h.clock.advance(15 * 60_000 + 1_000);
    await deliver(payload);
    await h.settled();
    await deliver(payload, 1);
    await deliver(later);
    await h.settled();
    expect(h.probe.count('restart_service')).toBe(0);
    // The first click closes the card as expired; a later one is told so.
    expect(renderSlackMessage(h.api.message(CHANNEL, card.ts)!).text).toMatch(/Expired/);
    expect(told()).toMatch(/This approval expired at 2026-01-01 12:15:00 UTC/);
  });

  it('attack: the waiting call changed after the card was posted (other arguments) is not run by the approval', async () => {
    h = await SlackHarness.start({ mode: 'http' });
    const { threadTs, card } = await requestRestart('api');
    const store = (h as unknown as { kernelOptions: { store: Store } }).kernelOptions.store;
    // What a store write by someone else, or a bug that swapped the call, would leave behind.
    const [runId] = await store.members(storeKeys.waitingRuns);
    const run = (await store.get<Run>(storeKeys.run(runId!)))! as Extract<
      Run,
      { status: 'waiting_for_approval' }
    >;
    await store.set(storeKeys.run(runId!), {
      ...run,
      approval: { ...run.approval, call: { ...run.approval.call, args: { service: 'worker' } } },
    });
    await h.click(USERS.bob, card, 'Approve');
    await h.settled();
    expect(h.probe.count('restart_service')).toBe(0);
    // Bob is told nothing ran, and the card and the thread say why, rather than a bare "Approved".
    expect(told()).toMatch(/Approved by Bob Builder .* Nothing was run: the approved call does not match/);
    expect(renderSlackMessage(h.api.message(CHANNEL, card.ts)!).text).toMatch(
      /does not match the call waiting/,
    );
    expect(h.threadText(threadTs)).toMatch(/restart_service: The approved call does not match/);
  });
});
