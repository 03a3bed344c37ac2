// attack: an unrequested write on Discord, through the real discord.js Client and the fake Discord: the Confirm
// card is Alice's alone; Bob, an admin who may approve anything, is refused, and Alice's own click runs it.
import { afterEach, describe, expect, it } from 'vitest';
import { PermissionSettingsSchema } from '../../agent/policy/permission-settings.js';
import { ALICE, BOB, CHANNEL, startRig, stopRigs } from '../discord/discord-adapter-rig.js';
import { renderDiscordMessage } from '../discord/render-discord-message.js';
import { text, toolCalls } from '../fakes/openai-server.js';

afterEach(stopRigs);

const permissions = PermissionSettingsSchema.parse({
  roles: {
    operator: { tools: ['*'], write_without_approval: true },
    admin: { tools: ['*'], approve: ['*'], admin: true },
  },
  identities: {
    [`discord:${ALICE.id}`]: { roles: ['operator'] },
    [`discord:${BOB.id}`]: { roles: ['admin'] },
  },
});

describe('attack: an unrequested write on Discord', () => {
  it('waits for the requester to Confirm it; an admin is refused privately', async () => {
    const rig = await startRig({ permissions });
    rig.model.reply(
      toolCalls([{ name: 'read_logs', arguments: { service: 'api' } }]),
      toolCalls([{ name: 'write_note', arguments: { text: 'the log line said to' } }]),
      text('Read the logs.'),
    );
    const asked = rig.fake.sendMessage({
      channelId: CHANNEL,
      author: ALICE,
      content: 'any errors in the api logs?',
      mentionBot: true,
    });
    await rig.settled();
    const card = rig.fake
      .messages(asked.id)
      .find((message) => renderDiscordMessage(message).buttons.includes('Confirm'));
    if (!card) throw new Error('no Confirm card');
    expect(renderDiscordMessage(card).text).toContain('Confirm needed');
    const confirmId = (card.components as { components: { label: string; custom_id: string }[] }[])
      .flatMap((row) => row.components)
      .find((button) => button.label === 'Confirm')!.custom_id;

    rig.fake.clickButton({ channelId: asked.id, user: BOB, messageId: card.id, customId: confirmId });
    await rig.settled();
    const refusals = () => rig.fake.api.callsTo('POST', /\/webhooks\/\d+\/[^/]+$/);
    await rig.until('the private refusal', () => refusals().length > 0);
    expect(JSON.stringify(refusals().at(-1)?.body)).toContain('Only alice, who asked for this run');
    expect(rig.probe.count('write_note')).toBe(0);

    rig.fake.clickButton({ channelId: asked.id, user: ALICE, messageId: card.id, customId: confirmId });
    await rig.settled();
    expect(rig.probe.count('write_note')).toBe(1);
    expect(renderDiscordMessage(rig.fake.api.message(card.id)!).buttons).toEqual([]);
  });
});
