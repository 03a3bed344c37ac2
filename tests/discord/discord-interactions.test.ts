// /ops through the adapter: acknowledged within a second however slow the model is, tasks worked in a thread of
// the posted task with the bot token, and answers that still arrive when the interaction token is dead.
import { type ChatInputCommandInteraction, Events } from 'discord.js';
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../agent/clock.js';
import { DiscordChatPort } from '../../bot/discord/discord-chat-port.js';
import {
  DeferredTaskReplies,
  INTERACTION_TOKEN_MS,
  InteractionReplies,
  TASK_ACCEPTED,
} from '../../bot/discord/discord-interactions.js';
import {
  CHANNEL as BARE_CHANNEL,
  login,
  next,
  setUp,
  tearDown,
} from '../fakes/discord/discord-client-rig.js';
import { FAKE_DISCORD_BOT } from '../fakes/discord/fake-discord.js';
import { type FakeAnswer, text } from '../fakes/openai-server.js';
import { ALICE, CHANNEL, type Rig, recordingLogger, startRig, stopRigs } from './discord-adapter-rig.js';
import { renderDiscordMessage } from './render-discord-message.js';

afterEach(async () => {
  await stopRigs();
  await tearDown();
});

const CALLBACK = /^\/interactions\/\d+\/[^/]+\/callback$/;

/** A model that answers only when the test says so. */
function slowModel(rig: Rig, answer: FakeAnswer): () => void {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  rig.model.respond(async () => {
    await released;
    return answer;
  });
  return release;
}

function threadText(rig: Rig, threadId: string): string {
  return rig.fake
    .messages(threadId)
    .map((message) => renderDiscordMessage(message).text)
    .join('\n');
}

/** The channel message `/ops <task>` posted, whose thread the run works in. */
function taskPost(rig: Rig, task: string) {
  return rig.fake
    .messages(CHANNEL)
    .find((message) => renderDiscordMessage(message).text.includes(`asked: ${task}`));
}

describe('/ops through the Discord adapter', () => {
  it('acknowledges /ops <task> within 1 s while the model is slow, and answers in a thread of the posted task', async () => {
    const rig = await startRig();
    const release = slowModel(rig, text('The api is up.'));
    const began = performance.now();
    const { id, token } = rig.fake.slashCommand({
      channelId: CHANNEL,
      user: ALICE,
      options: { task: 'is the api up?' },
    });
    await rig.until('the ack', () => rig.fake.api.callsTo('POST', CALLBACK).length > 0);
    expect(performance.now() - began).toBeLessThan(1000);
    expect(rig.fake.api.callsTo('POST', CALLBACK)[0]!.body).toMatchObject({ type: 5, data: { flags: 64 } });
    await rig.until('the model is asked', () => rig.model.requests.length > 0);
    expect(taskPost(rig, 'is the api up?')).toBeDefined();

    release();
    await rig.until('the answer', () => threadText(rig, taskPost(rig, 'is the api up?')!.id).includes('up.'));
    await rig.settled();
    const post = taskPost(rig, 'is the api up?')!;
    expect(rig.fake.api.threads(CHANNEL).map((thread) => [thread.id, thread.name])).toEqual([
      [post.id, 'alice asked: is the api up?'],
    ]);
    expect(threadText(rig, post.id)).toContain('The api is up.');
    // The interaction webhook is used for the ack and the private note only; every run output uses the bot token.
    const webhookUses = rig.fake.api.calls.filter((call) => /^\/(interactions|webhooks)\//.test(call.route));
    expect(webhookUses.map((call) => `${call.method} ${call.route}`)).toEqual([
      `POST /interactions/${id}/${token}/callback`,
      `PATCH /webhooks/${FAKE_DISCORD_BOT.applicationId}/${token}/messages/@original`,
    ]);
    expect(webhookUses[1]!.body).toMatchObject({ content: TASK_ACCEPTED });
    expect(rig.fake.messages(post.id).every((message) => message.interactionToken === undefined)).toBe(true);
  });

  it('acknowledges /ops help within 1 s while a run waits on a slow model, and answers it privately', async () => {
    const rig = await startRig();
    const release = slowModel(rig, text('disk is fine'));
    rig.fake.sendMessage({
      channelId: CHANNEL,
      author: ALICE,
      content: 'how is the disk?',
      mentionBot: true,
    });
    await rig.until('the model is asked', () => rig.model.requests.length > 0);

    const began = performance.now();
    const { token } = rig.fake.slashCommand({ channelId: CHANNEL, user: ALICE, options: { task: 'help' } });
    await rig.until('the ack', () => rig.fake.api.callsTo('POST', CALLBACK).length > 0);
    expect(performance.now() - began).toBeLessThan(1000);
    await rig.until('the help', () => rig.fake.api.callsTo('PATCH', /@original$/).length > 0);
    const help = rig.fake.api.callsTo('PATCH', new RegExp(`/${token}/messages/@original$`))[0]!;
    expect(JSON.stringify(help.body)).toContain('/ops status');
    // The run is still waiting on the model: the ack and the help did not wait for it.
    expect(rig.model.requests).toHaveLength(1);
    const threads = rig.fake.api.threads(CHANNEL).map((thread) => threadText(rig, thread.id));
    expect(threads.join('\n')).not.toContain('disk is fine');
    release();
    await rig.settled();
  });

  it('delivers a task’s result in its thread with the bot token when the interaction token dies after the ack', async () => {
    const rig = await startRig();
    const release = slowModel(rig, text('Everything is green.'));
    const { token } = rig.fake.slashCommand({
      channelId: CHANNEL,
      user: ALICE,
      options: { task: 'check everything' },
    });
    rig.fake.api.expireAfterAck(token);
    await rig.until('the model is asked', () => rig.model.requests.length > 0);
    release();
    await rig.until('the answer', () =>
      threadText(rig, taskPost(rig, 'check everything')?.id ?? '-').includes('green'),
    );
    await rig.settled();
    // The note on the deferred reply was refused (50027); it was only a note, so nothing else was posted for it.
    const note = rig.fake.api.callsTo('PATCH', /@original$/);
    expect(note.map((call) => call.status)).toEqual([401]);
    expect(rig.fake.messages(CHANNEL).map((message) => renderDiscordMessage(message).text)).toEqual([
      'alice asked: check everything',
    ]);
    expect(rig.logger.lines.some((line) => line.msg.includes('past its 15 minutes'))).toBe(true);
  });

  it('posts the answer to /ops help in the channel with the bot token when the interaction token is dead', async () => {
    const rig = await startRig();
    const { token } = rig.fake.slashCommand({ channelId: CHANNEL, user: ALICE, options: { task: 'help' } });
    rig.fake.api.expireAfterAck(token);
    await rig.until('the help in the channel', () => rig.fake.messages(CHANNEL).length > 0);
    await rig.settled();
    const [posted] = rig.fake.messages(CHANNEL);
    expect(posted!.interactionToken).toBeUndefined();
    expect(renderDiscordMessage(posted!).text).toMatch(/^For alice: [\s\S]*\/ops status/);
    expect(posted!.allowedMentions).toEqual({ parse: [] });
  });
});

describe('InteractionReplies on a real discord.js interaction', () => {
  async function deferredInteraction() {
    const { fake, client } = await setUp();
    await login(client);
    const received = next<ChatInputCommandInteraction>(client, Events.InteractionCreate);
    fake.slashCommand({ channelId: BARE_CHANNEL, user: ALICE, options: { task: 'status' } });
    const interaction = await received;
    await interaction.deferReply({ flags: 64 });
    const clock = new ManualClock(Date.now());
    const logger = recordingLogger();
    const port = new DiscordChatPort({ rest: client.rest, clock });
    const replies = new InteractionReplies(
      interaction,
      { platform: 'discord', channelId: BARE_CHANNEL },
      'alice',
      { port, clock, logger },
    );
    return { fake, clock, logger, replies };
  }

  it('never calls the webhook past 15 minutes: an answer that matters goes to the channel, a note is dropped', async () => {
    const { fake, clock, logger, replies } = await deferredInteraction();
    clock.advance(INTERACTION_TOKEN_MS);
    expect(replies.expired()).toBe(true);
    await replies.edit('nothing is running', 'public');
    await replies.followUp('just a note', 'drop');
    expect(fake.api.calls.filter((call) => call.route.startsWith('/webhooks/'))).toEqual([]);
    expect(fake.messages(BARE_CHANNEL).map((message) => renderDiscordMessage(message).text)).toEqual([
      'For alice: nothing is running',
    ]);
    expect(logger.lines.filter((line) => line.level === 'warn')).toHaveLength(2);
  });

  it('uses the webhook while the token lives', async () => {
    const { fake, clock, replies } = await deferredInteraction();
    clock.advance(INTERACTION_TOKEN_MS / 2);
    await replies.edit('nothing is running', 'public');
    expect(fake.api.callsTo('PATCH', /@original$/).map((call) => call.status)).toEqual([200]);
    expect(fake.messages(BARE_CHANNEL).map((message) => message.content)).toEqual(['nothing is running']);
  });
});

describe('DeferredTaskReplies', () => {
  it('keeps the first close for an interaction, and drops those whose token is dead', async () => {
    const clock = new ManualClock(Date.now());
    const deferred = new DeferredTaskReplies(clock);
    const closed: string[] = [];
    deferred.add('1', async () => void closed.push('first'));
    deferred.add('1', async () => void closed.push('redelivered'));
    await deferred.take('1')?.();
    expect(closed).toEqual(['first']);
    expect(deferred.take('1')).toBeUndefined();

    deferred.add('2', async () => {});
    clock.advance(INTERACTION_TOKEN_MS);
    deferred.add('3', async () => {});
    expect(deferred.size).toBe(1);
  });
});
