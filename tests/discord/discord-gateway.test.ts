// The adapter on the gateway: a dropped socket is `reconnecting` until the resume, a redelivered message starts
// nothing twice, and the MessageContent intent is on, off, or refused by Discord (4014) with a fallback.
import { GatewayIntentBits } from 'discord.js';
import { afterEach, describe, expect, it } from 'vitest';
import { text } from '../fakes/openai-server.js';
import { ALICE, CHANNEL, type Rig, startRig, stopRigs } from './discord-adapter-rig.js';
import { renderDiscordMessage } from './render-discord-message.js';

afterEach(stopRigs);

function threadText(rig: Rig, threadId: string): string {
  return rig.fake
    .messages(threadId)
    .map((message) => renderDiscordMessage(message).text)
    .join('\n');
}

/** A mention in the channel, answered in its thread; returns the thread's id. */
async function mention(rig: Rig, content: string): Promise<string> {
  const before = rig.model.requests.length;
  const asked = rig.fake.sendMessage({ channelId: CHANNEL, author: ALICE, content, mentionBot: true });
  await rig.until('the run', () => rig.model.requests.length > before);
  await rig.settled();
  return asked.id;
}

/**
 * Resolves once the bot has received every event sent so far: events arrive in order on the socket, so when a
 * later `/ops help` has been acknowledged, everything before it has reached the intake; then it settles.
 */
async function caughtUp(rig: Rig): Promise<void> {
  const acks = () => rig.fake.api.callsTo('POST', /\/callback$/).length;
  const before = acks();
  rig.fake.slashCommand({ channelId: CHANNEL, user: ALICE, options: { task: 'help' } });
  await rig.until('the bot to catch up', () => acks() > before);
  await rig.settled();
}

describe('the Discord adapter on the gateway', () => {
  it('is reconnecting after a dropped socket and ready after the resume; a redelivered message starts nothing twice', async () => {
    const rig = await startRig();
    rig.model.reply(text('api is up'), text('should never be asked'));
    const thread = await mention(rig, 'is the api up?');
    expect(await rig.service.readiness()).toMatchObject({ ok: true });

    rig.fake.gateway.holdHandshakes();
    rig.fake.dropConnections();
    await rig.until('reconnecting', () => rig.adapter.state() === 'reconnecting');
    const down = await rig.service.readiness();
    expect(down.ok).toBe(false);
    expect(down.detail).toContain('gateway reconnecting');
    // Discord hands the same MESSAGE_CREATE over again while the bot is away; the resume replays it.
    rig.fake.redeliverMessage(thread);
    rig.fake.gateway.releaseHandshakes();
    await rig.fake.gateway.resumed();
    await rig.until('ready again', () => rig.adapter.state() === 'ready');
    await rig.settled();

    expect(rig.fake.gateway.resumes).toHaveLength(1);
    expect(rig.fake.gateway.identifies).toHaveLength(1);
    expect(await rig.service.readiness()).toMatchObject({ ok: true });
    expect(rig.model.requests).toHaveLength(1);
    expect(rig.fake.api.threads(CHANNEL)).toHaveLength(1);
    expect(rig.fake.api.callsTo('POST', /\/threads$/)).toHaveLength(1);
    expect(threadText(rig, thread).match(/api is up/g)).toHaveLength(1);
  });

  it('without MessageContent: a mention starts a run, a plain thread reply (empty content) is not answered, a mention in the thread is', async () => {
    const rig = await startRig();
    expect(rig.fake.gateway.identifies[0]!.intents & GatewayIntentBits.MessageContent).toBe(0);
    expect(rig.adapter.messageContent).toBe('off');
    expect((await rig.service.readiness()).detail).toContain(
      'message content: off (plain thread replies need a mention',
    );
    rig.model.reply(text('first answer'), text('second answer'));
    const thread = await mention(rig, 'check the api');
    const shownBefore = rig.fake.messages(thread).length;

    rig.fake.sendMessage({ channelId: thread, author: ALICE, content: 'and the worker?' });
    await caughtUp(rig);
    expect(rig.model.requests).toHaveLength(1);
    expect(rig.fake.messages(thread)).toHaveLength(shownBefore + 1);

    rig.fake.sendMessage({ channelId: thread, author: ALICE, content: 'and the worker?', mentionBot: true });
    await rig.until('the second run', () => rig.model.requests.length > 1);
    await rig.settled();
    expect(threadText(rig, thread)).toContain('second answer');
    expect(JSON.stringify(rig.model.requests[1]!.body)).toContain('and the worker?');
  });

  it('with MessageContent on, reads a plain reply in a thread it works in', async () => {
    const rig = await startRig({ messageContent: true });
    expect(rig.adapter.messageContent).toBe('on');
    expect((await rig.service.readiness()).detail).toMatch(
      /^leader · gateway ready as \d+ · message content: on$/,
    );
    rig.model.reply(text('first answer'), text('worker is fine'));
    const thread = await mention(rig, 'check the api');
    rig.fake.sendMessage({ channelId: thread, author: ALICE, content: 'and the worker?' });
    await rig.until('the second run', () => rig.model.requests.length > 1);
    await rig.settled();
    expect(threadText(rig, thread)).toContain('worker is fine');
  });

  it('falls back to running without MessageContent when Discord refuses it (4014), and says so and how to fix it', async () => {
    const rig = await startRig({ messageContent: true, refuseMessageContent: true });
    const intents = rig.fake.gateway.identifies.map(
      (identify) => (identify.intents & GatewayIntentBits.MessageContent) !== 0,
    );
    expect(intents).toEqual([true, false]);
    expect(rig.fake.gateway.closeCodes).toEqual([4014]);
    expect(rig.adapter.messageContent).toBe('refused');
    expect(rig.adapter.state()).toBe('ready');

    const readiness = await rig.service.readiness();
    expect(readiness.ok).toBe(true);
    expect(readiness.detail).toContain('message content: off: Discord refused the intent (4014)');
    const warning = rig.logger.lines.find((line) => line.level === 'warn' && line.msg.includes('4014'));
    expect(warning?.msg).toContain('Bot → Privileged Gateway Intents → Message Content Intent');
    const started = rig.logger.lines.find((line) => line.msg.startsWith('Discord gateway ready as'));
    expect(started?.msg).toContain('· message content: off: Discord refused the intent (4014)');

    // It works as without the intent: a mention is read, a plain thread reply needs a mention.
    rig.model.reply(text('api is up'));
    const thread = await mention(rig, 'is the api up?');
    expect(threadText(rig, thread)).toContain('api is up');
    const shownBefore = rig.fake.messages(thread).length;
    rig.fake.sendMessage({ channelId: thread, author: ALICE, content: 'thanks' });
    await caughtUp(rig);
    expect(rig.model.requests).toHaveLength(1);
    expect(rig.fake.messages(thread)).toHaveLength(shownBefore + 1);
  });
});
