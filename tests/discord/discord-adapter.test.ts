// The Discord adapter end to end: the real discord.js Client against the fake Discord, the real router and kernel,
// a scripted model: a mention answered in a new thread, /ops acknowledged at once, and an approval by button.
import { afterEach, describe, expect, it } from 'vitest';
import { text, toolCalls } from '../fakes/openai-server.js';
import { ALICE, BOB, CHANNEL, type Rig, startRig, stopRigs } from './discord-adapter-rig.js';
import { renderDiscordMessage } from './render-discord-message.js';

afterEach(stopRigs);
let rig: Rig;
const start = startRig;

describe('Discord adapter', () => {
  it('answers a mention in a new public thread named after the task, without pinging anyone', async () => {
    rig = await start();
    rig.model.reply(text('The api is up, @everyone.'));
    const asked = rig.fake.sendMessage({
      channelId: CHANNEL,
      author: ALICE,
      content: 'is the api up?',
      mentionBot: true,
    });
    await rig.settled();
    const thread = rig.fake.api.threads(CHANNEL).find((candidate) => candidate.id === asked.id);
    expect(thread?.name).toBe('is the api up?');
    const shown = rig.fake.messages(asked.id).map(renderDiscordMessage);
    expect(shown.map((message) => message.text).join('\n')).toContain('The api is up');
    expect(shown.flatMap((message) => message.pings)).toEqual([]);
    expect(
      rig.fake
        .messages(asked.id)
        .every((message) => JSON.stringify(message.allowedMentions) === '{"parse":[]}'),
    ).toBe(true);
  });

  it('acknowledges /ops help at once, privately, then answers it', async () => {
    rig = await start();
    const { token } = rig.fake.slashCommand({ channelId: CHANNEL, user: ALICE, options: { task: 'help' } });
    await rig.until('the help text', () => rig.fake.api.callsTo('PATCH', /@original/).length > 0);
    const callback = rig.fake.api.callsTo('POST', /\/interactions\/\d+\/[^/]+\/callback/)[0];
    expect(callback?.body).toMatchObject({ type: 5, data: { flags: 64 } });
    const edits = rig.fake.api.callsTo('PATCH', new RegExp(`/webhooks/\\d+/${token}/messages/@original`));
    expect(JSON.stringify(edits.at(-1)?.body)).toContain('/ops status');
  });

  it('runs an approval by button: the requester is refused privately, an approver approves once', async () => {
    rig = await start();
    rig.model.reply(
      toolCalls([{ name: 'restart_service', arguments: { service: 'api' } }], {
        content: 'the api is stuck',
      }),
      text('Restarted the api.'),
    );
    const asked = rig.fake.sendMessage({
      channelId: CHANNEL,
      author: ALICE,
      content: 'restart the api',
      mentionBot: true,
    });
    await rig.settled();
    const card = rig.fake
      .messages(asked.id)
      .find((message) => renderDiscordMessage(message).buttons.includes('Approve'));
    expect(card).toBeDefined();
    const approveId = (card!.components as { components: { label: string; custom_id: string }[] }[])
      .flatMap((row) => row.components)
      .find((button) => button.label === 'Approve')!.custom_id;

    rig.fake.clickButton({ channelId: asked.id, user: ALICE, messageId: card!.id, customId: approveId });
    await rig.settled();
    // On a loaded machine the private reply can arrive after settled()'s fixed rounds (a CI run missed it): wait for it.
    const refusals = () => rig.fake.api.callsTo('POST', /\/webhooks\/\d+\/[^/]+$/);
    await rig.until('the private refusal', () => refusals().length > 0);
    expect(JSON.stringify(refusals().at(-1)?.body)).toContain('someone else has to approve');
    expect(rig.probe.count('restart_service')).toBe(0);

    rig.fake.clickButton({ channelId: asked.id, user: BOB, messageId: card!.id, customId: approveId });
    await rig.settled();
    expect(rig.probe.count('restart_service')).toBe(1);
    const updated = renderDiscordMessage(rig.fake.api.message(card!.id)!);
    expect(updated.buttons).toEqual([]);
    expect(updated.text).toContain('Approved');
    expect(
      rig.fake
        .messages(asked.id)
        .map((message) => renderDiscordMessage(message).text)
        .join('\n'),
    ).toContain('Restarted the api.');
  });

  it('approves for a while by button: the card names the grant and the same call then runs with no card', async () => {
    rig = await start();
    const ask = () => {
      rig.model.reply(
        toolCalls([{ name: 'restart_service', arguments: { service: 'api' } }], { content: 'stuck' }),
        text('Restarted the api.'),
      );
      return rig.fake.sendMessage({
        channelId: CHANNEL,
        author: ALICE,
        content: 'restart the api',
        mentionBot: true,
      });
    };
    const asked = ask();
    await rig.settled();
    const card = rig.fake
      .messages(asked.id)
      .find((message) => renderDiscordMessage(message).buttons.includes('Approve for 1h'));
    if (!card) throw new Error('no approval card with grant buttons');
    const rows = card.components as { components: { label: string; custom_id: string }[] }[];
    // One row of five: Approve, three grant lengths, Deny; Cancel run on a row of its own.
    expect(rows.map((row) => row.components.map((button) => button.label))).toEqual([
      ['Approve', 'Approve for 15m', 'Approve for 1h', 'Approve for 4h', 'Deny'],
      ['Cancel run'],
    ]);
    const grantId = rows[0]!.components[2]!.custom_id;
    expect(grantId).toMatch(/^grant:apv_\w+:1h$/);

    rig.fake.clickButton({ channelId: asked.id, user: BOB, messageId: card.id, customId: grantId });
    await rig.settled();
    expect(rig.probe.count('restart_service')).toBe(1);
    const updated = renderDiscordMessage(rig.fake.api.message(card.id)!);
    expect(updated.buttons).toEqual([]);
    expect(updated.text).toMatch(/for 1h, until \d\d:\d\d UTC \(grt\\?_[0-9a-f]{16}\)/);

    const again = ask();
    await rig.settled();
    const second = rig.fake.messages(again.id).map((message) => renderDiscordMessage(message));
    expect(second.some((message) => message.buttons.includes('Approve'))).toBe(false);
    expect(second.map((message) => message.text).join('\n')).toMatch(/run under bob's grant/i);
    expect(rig.probe.count('restart_service')).toBe(2);
  });

  it('takes a reply in the thread as the answer to the question asked there', async () => {
    rig = await start();
    rig.model.reply(
      toolCalls([
        { name: 'ask_user', arguments: { question: 'Which environment?', choices: ['staging', 'prod'] } },
      ]),
      text('prod is fine.'),
    );
    const asked = rig.fake.sendMessage({
      channelId: CHANNEL,
      author: ALICE,
      content: 'check the api',
      mentionBot: true,
    });
    await rig.settled();
    expect(
      rig.fake
        .messages(asked.id)
        .map((message) => renderDiscordMessage(message).text)
        .join('\n'),
    ).toContain('Which environment?');
    // Without MessageContent, Discord sends a thread reply's text only when it mentions the bot.
    rig.fake.sendMessage({ channelId: asked.id, author: ALICE, content: 'prod', mentionBot: true });
    await rig.settled();
    const thread = rig.fake
      .messages(asked.id)
      .map((message) => renderDiscordMessage(message).text)
      .join('\n');
    expect(thread).toContain('prod is fine.');
    expect(rig.model.requests).toHaveLength(2);
  });

  it('works in a DM like a mention, answering in the DM', async () => {
    rig = await start();
    const dm = rig.fake.api.dmChannel(ALICE);
    rig.model.reply(text('disk is fine'));
    rig.fake.sendMessage({ channelId: dm.id, author: ALICE, content: 'how is the disk?' });
    await rig.settled();
    const shown = rig.fake.messages(dm.id).map((message) => renderDiscordMessage(message).text);
    expect(shown.join('\n')).toContain('disk is fine');
  });

  /** Alice's restart waits for approval; returns the card and its Approve button's id. */
  async function waitingCard(current: Rig) {
    current.model.reply(
      toolCalls([{ name: 'restart_service', arguments: { service: 'api' } }], {
        content: 'the api is stuck',
      }),
      text('Restarted the api.'),
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
      .find((message) => renderDiscordMessage(message).buttons.includes('Approve'))!;
    const approveId = (card.components as { components: { label: string; custom_id: string }[] }[])
      .flatMap((row) => row.components)
      .find((button) => button.label === 'Approve')!.custom_id;
    return { thread: asked.id, card, approveId };
  }

  it('runs a double click once, and tells the second clicker who won', async () => {
    rig = await start();
    const { thread, card, approveId } = await waitingCard(rig);
    rig.fake.clickButton({ channelId: thread, user: BOB, messageId: card.id, customId: approveId });
    rig.fake.clickButton({ channelId: thread, user: BOB, messageId: card.id, customId: approveId });
    await rig.settled();
    expect(rig.probe.count('restart_service')).toBe(1);
    const followUps = rig.fake.api
      .callsTo('POST', /\/webhooks\/\d+\/[^/]+$/)
      .map((call) => JSON.stringify(call.body));
    expect(followUps.some((body) => body.includes('Already approved by'))).toBe(true);
  });

  it('refuses a click after the approval expired, runs nothing, and shows the card expired', async () => {
    rig = await start();
    const { thread, card, approveId } = await waitingCard(rig);
    rig.clock.advance(15 * 60_000 + 1_000);
    rig.fake.clickButton({ channelId: thread, user: BOB, messageId: card.id, customId: approveId });
    await rig.settled();
    expect(rig.probe.count('restart_service')).toBe(0);
    const shown = renderDiscordMessage(rig.fake.api.message(card.id)!);
    expect(shown.buttons).toEqual([]);
    expect(shown.text).toContain('Expired');
  });
});
