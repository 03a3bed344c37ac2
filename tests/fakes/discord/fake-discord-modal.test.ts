// The fake Discord's modals, driven by the real discord.js Client: a button answered with a modal (callback type 9),
// checked as Discord checks it, and filled in and submitted as a MODAL_SUBMIT interaction (type 5) from the card.
import { type ButtonInteraction, Events, type Interaction, type ModalSubmitInteraction } from 'discord.js';
import { afterEach, describe, expect, it } from 'vitest';
import { ALICE, CHANNEL, login, next, OPERATORS_ROLE, setUp, tearDown } from './discord-client-rig.js';
import type { FakeDiscord } from './fake-discord.js';

afterEach(tearDown);

const MODAL = {
  custom_id: 'deny:apv_1',
  title: 'Deny restart_service?',
  components: [
    {
      type: 1,
      components: [
        {
          type: 4,
          custom_id: 'reason',
          style: 2,
          label: 'Reason (optional)',
          required: false,
          max_length: 500,
        },
      ],
    },
  ],
};

/** Alice clicks a button on a card the bot posted; resolves with the click as discord.js sees it. */
async function clickOnCard(fake: FakeDiscord, client: Awaited<ReturnType<typeof setUp>>['client']) {
  const channel = client.channels.cache.get(CHANNEL);
  if (!channel?.isSendable()) throw new Error('the ops channel is not sendable');
  const card = await channel.send({
    content: 'Approve restart?',
    components: [{ type: 1, components: [{ type: 2, style: 4, custom_id: 'deny:apv_1', label: 'Deny' }] }],
  });
  const received = next<Interaction>(client, Events.InteractionCreate);
  const sent = fake.clickButton({
    channelId: CHANNEL,
    user: ALICE,
    roles: [OPERATORS_ROLE],
    messageId: card.id,
    customId: 'deny:apv_1',
  });
  const click = (await received) as ButtonInteraction;
  return { card, sent, click };
}

describe('modals in the fake Discord, driven by the real discord.js Client', () => {
  it('answers a click with a modal, then delivers what the person typed as a MODAL_SUBMIT from the card', async () => {
    const { fake, client } = await setUp();
    await login(client);
    const { card, sent, click } = await clickOnCard(fake, client);
    await click.showModal(MODAL);

    const callback = fake.api.callsTo('POST', /\/callback$/)[0]!;
    expect(callback).toMatchObject({ status: 204, body: { type: 9, data: MODAL } });
    expect(fake.api.interactions.get(sent.token)?.modal).toMatchObject({
      customId: 'deny:apv_1',
      inputs: [{ customId: 'reason', style: 2, required: false, maxLength: 500 }],
    });

    const received = next<Interaction>(client, Events.InteractionCreate);
    const submitted = fake.submitModal(sent, { reason: 'not now' });
    const submit = (await received) as ModalSubmitInteraction;
    expect(submit.isModalSubmit()).toBe(true);
    expect(submit.id).toBe(submitted.id);
    expect(submit.customId).toBe('deny:apv_1');
    expect(submit.fields.getTextInputValue('reason')).toBe('not now');
    expect(submit.user.id).toBe(ALICE.id);
    expect(submit.channelId).toBe(CHANNEL);
    expect(submit.isFromMessage() && submit.message.id).toBe(card.id);
    if (!submit.inCachedGuild()) throw new Error('expected a submit in a cached guild');
    expect(submit.member.roles.cache.has(OPERATORS_ROLE)).toBe(true);
    if (!submit.isFromMessage()) throw new Error('expected a submit from the card');
    await submit.deferUpdate();
    expect(fake.api.callsTo('POST', /\/callback$/).at(-1)).toMatchObject({ status: 204, body: { type: 6 } });
  });

  it('sends an input left empty as the empty string, and refuses values the input does not take', async () => {
    const { fake, client } = await setUp();
    await login(client);
    const { sent, click } = await clickOnCard(fake, client);
    await click.showModal(MODAL);
    expect(() => fake.submitModal(sent, { reason: 'x'.repeat(501) })).toThrow(/0 to 500 characters/);
    expect(() => fake.submitModal(sent, { other: 'x' })).toThrow(/has no input other/);
    const received = next<Interaction>(client, Events.InteractionCreate);
    fake.submitModal(sent);
    const submit = (await received) as ModalSubmitInteraction;
    expect(submit.fields.getTextInputValue('reason')).toBe('');
  });

  it('refuses a malformed modal with 50035 and leaves the interaction unanswered', async () => {
    const { fake, client } = await setUp();
    await login(client);
    const { sent, click } = await clickOnCard(fake, client);
    await expect(click.showModal({ ...MODAL, title: 'x'.repeat(46) })).rejects.toMatchObject({
      code: 50035,
      status: 400,
    });
    expect(() => fake.submitModal(sent)).toThrow(/showed no modal/);
    await click.deferUpdate();
    expect(fake.api.callsTo('POST', /\/callback$/).map((call) => call.status)).toEqual([400, 204]);
  });

  it('refuses a modal for an expired click with 10062, and a modal in answer to a modal submit', async () => {
    const { fake, client } = await setUp();
    await login(client);
    const first = await clickOnCard(fake, client);
    fake.api.expireInteraction(first.sent.token);
    await expect(first.click.showModal(MODAL)).rejects.toMatchObject({ code: 10062 });

    const second = await clickOnCard(fake, client);
    await second.click.showModal(MODAL);
    const received = next<Interaction>(client, Events.InteractionCreate);
    const submitted = fake.submitModal(second.sent);
    await received;
    await expect(
      client.rest.post(`/interactions/${submitted.id}/${submitted.token}/callback`, {
        body: { type: 9, data: MODAL },
        auth: false,
      }),
    ).rejects.toMatchObject({ code: 50035 });
  });
});
