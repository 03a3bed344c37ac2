// Denying with a reason on Discord, end to end through the real discord.js Client and the fake Discord: Deny opens a

// modal, its submit denies (with the reason, or without when left empty), the kernel still decides who may deny,
// every ack is prompt, and a modal that cannot be shown falls back to a plain deny. Approve stays one click.
import { afterEach, describe, expect, it } from 'vitest';
import { CARD_BUTTONS } from '../approvals/card-buttons.js';
import type { DiscordApiCall } from '../fakes/discord/fake-discord.js';
import { text, toolCalls } from '../fakes/openai-server.js';
import { ALICE, BOB, CAROL, CHANNEL, type Rig, startRig, stopRigs } from './discord-adapter-rig.js';
import { renderDiscordMessage } from './render-discord-message.js';

afterEach(stopRigs);
let rig: Rig;

const CALLBACK = /^\/interactions\/\d+\/[^/]+\/callback$/;
/** Discord's deadline for the first answer to an interaction; "well within" is a third of it. */
const PROMPT_ACK_MS = 1_000;

/** Alice's restart waits for approval; returns the card and its buttons' ids. */
async function waitingCard(current: Rig) {
  current.model.reply(
    toolCalls([{ name: 'restart_service', arguments: { service: 'api' } }], { content: 'the api is stuck' }),
    text('Not restarted, as asked.'),
  );
  const asked = current.fake.sendMessage({
    channelId: CHANNEL,
    author: ALICE,
    content: 'restart the api',
    mentionBot: true,
  });
  await current.settled();
  const card = current.fake
    .messages(asked.id)
    .find((message) => renderDiscordMessage(message).buttons.includes('Deny'))!;
  const ids = (card.components as { components: { label: string; custom_id: string }[] }[])
    .flatMap((row) => row.components)
    .map((button) => [button.label, button.custom_id]);
  const { Approve: approveId, Deny: denyId } = Object.fromEntries(ids) as Record<string, string>;
  return { thread: asked.id, card, approveId: approveId!, denyId: denyId! };
}

/** The answer to the interaction with this token, once the bot gave it, and how long after `since`. */
async function callbackFor(current: Rig, token: string, since: number) {
  const find = () => current.fake.api.callsTo('POST', CALLBACK).find((call) => call.route.includes(token));
  await current.until(`the answer to ${token}`, () => find() !== undefined);
  return { call: find() as DiscordApiCall, afterMs: Date.now() - since };
}

function shown(current: Rig, messageId: string) {
  return renderDiscordMessage(current.fake.api.message(messageId)!);
}

/** A fresh rig with Alice's restart waiting for approval, and `user` clicking one of the card's buttons. */
async function clickOnWaitingCard(
  user: Parameters<Rig['fake']['clickButton']>[0]['user'],
  button: 'Approve' | 'Deny',
) {
  rig = await startRig();
  const waiting = await waitingCard(rig);
  const click = rig.fake.clickButton({
    channelId: waiting.thread,
    user,
    messageId: waiting.card.id,
    customId: button === 'Deny' ? waiting.denyId : waiting.approveId,
  });
  return { ...waiting, click };
}

describe('Deny with a reason on Discord', () => {
  it('opens a modal on Deny, titled with the tool, with one optional reason of at most 500 characters', async () => {
    const { card, denyId, click } = await clickOnWaitingCard(BOB, 'Deny');
    const { call } = await callbackFor(rig, click.token, Date.now());
    await rig.settled();
    expect(call.status).toBe(204);
    expect(call.body).toEqual({
      type: 9,
      data: {
        custom_id: denyId,
        title: 'Deny restart_service?',
        components: [
          {
            type: 1,
            components: [
              expect.objectContaining({
                type: 4,
                custom_id: 'reason',
                style: 2,
                label: 'Reason (optional)',
                required: false,
                max_length: 500,
              }),
            ],
          },
        ],
      },
    });
    // The modal's id is the button's: the opaque approval id, nothing more.
    expect(denyId).toMatch(/^deny:[A-Za-z0-9_-]+$/);
    // Nothing is decided until the form comes back.
    expect(shown(rig, card.id).buttons).toEqual(CARD_BUTTONS);
  });

  it('denies with the reason typed, trimmed, and the closed card shows who and why', async () => {
    const { card, click } = await clickOnWaitingCard(BOB, 'Deny');
    await callbackFor(rig, click.token, Date.now());
    const submit = rig.fake.submitModal(click, { reason: '  not during the release freeze \n' });
    const { call } = await callbackFor(rig, submit.token, Date.now());
    await rig.settled();
    expect(call.body).toEqual({ type: 6 });
    const closed = shown(rig, card.id);
    expect(closed.buttons).toEqual([]);
    expect(closed.text).toMatch(/Denied\*\* by \*\*bob\*\* at <t:\d+:f> · not during the release freeze$/m);
    expect(rig.probe.count('restart_service')).toBe(0);
    // The run was told why, and went on from there.
    expect(JSON.stringify(rig.model.requests.at(-1))).toContain('not during the release freeze');
    expect(rig.fake.api.callsTo('POST', /^\/webhooks\//)).toEqual([]);
  });

  it('denies without a reason when the form is sent empty', async () => {
    const { card, click } = await clickOnWaitingCard(BOB, 'Deny');
    await callbackFor(rig, click.token, Date.now());
    rig.fake.submitModal(click, { reason: '   ' });
    await rig.settled();
    const closed = shown(rig, card.id);
    expect(closed.buttons).toEqual([]);
    expect(closed.text).toMatch(/Denied\*\* by \*\*bob\*\* at <t:\d+:f>$/m);
    expect(rig.probe.count('restart_service')).toBe(0);
  });

  it("refuses a viewer's submit privately, and denies nothing", async () => {
    const { card, click } = await clickOnWaitingCard(CAROL, 'Deny');
    await callbackFor(rig, click.token, Date.now());
    const submit = rig.fake.submitModal(click, { reason: 'I do not like it' });
    await rig.settled();
    const refusal = rig.fake.api.callsTo('POST', new RegExp(`^/webhooks/\\d+/${submit.token}$`));
    expect(refusal).toHaveLength(1);
    expect(refusal[0]!.body).toMatchObject({ flags: 64 });
    expect(JSON.stringify(refusal[0]!.body)).toContain('may approve or deny restart_service');
    const still = shown(rig, card.id);
    expect(still.buttons).toEqual(CARD_BUTTONS);
    expect(still.text).not.toContain('I do not like it');
    expect(rig.fake.api.message(card.id)!.history.every((past) => past.components.length > 0)).toBe(true);
  });

  it('acknowledges the click (with the modal) and the submit well within 3 s', async () => {
    const { click } = await clickOnWaitingCard(BOB, 'Deny');
    const modal = await callbackFor(rig, click.token, Date.now());
    const submit = rig.fake.submitModal(click, { reason: 'not now' });
    const update = await callbackFor(rig, submit.token, Date.now());
    expect(modal.call.body).toMatchObject({ type: 9 });
    expect(update.call.body).toEqual({ type: 6 });
    expect(modal.afterMs).toBeLessThan(PROMPT_ACK_MS);
    expect(update.afterMs).toBeLessThan(PROMPT_ACK_MS);
    await rig.settled();
  });

  it('denies at once, without a reason, when the modal cannot be shown, and logs why', async () => {
    const { card, click } = await clickOnWaitingCard(BOB, 'Deny');
    // Aged past its 15 minutes before the bot answers: the modal gets 10062.
    rig.fake.api.expireInteraction(click.token);
    await rig.until('the card to close', () => shown(rig, card.id).buttons.length === 0);
    await rig.settled();
    expect(shown(rig, card.id).text).toMatch(/Denied\*\* by \*\*bob\*\* at <t:\d+:f>$/m);
    expect(rig.fake.api.callsTo('POST', CALLBACK)[0]).toMatchObject({ status: 404, body: { type: 9 } });
    const why = rig.logger.lines.find((line) => line.msg.includes('could not show the deny reason form'));
    expect(why).toMatchObject({ level: 'warn', obj: { code: 10062 } });
    expect(rig.probe.count('restart_service')).toBe(0);
  });

  it('keeps Approve one click: no modal, the card updated in place', async () => {
    const { card, click } = await clickOnWaitingCard(BOB, 'Approve');
    const { call } = await callbackFor(rig, click.token, Date.now());
    await rig.settled();
    expect(call.body).toEqual({ type: 6 });
    expect(shown(rig, card.id).text).toContain('Approved');
    expect(rig.probe.count('restart_service')).toBe(1);
  });
});
