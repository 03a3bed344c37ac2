// The real discord.js Client against the fake gateway: login, heartbeats, messages and their content, resume, 4014.
import { Events, GatewayIntentBits, type Message } from 'discord.js';
import { afterEach, describe, expect, it } from 'vitest';
import {
  ALICE,
  CHANNEL,
  GUILD,
  login,
  next,
  OPERATORS_ROLE,
  setUp,
  TOKEN,
  tearDown,
} from './discord-client-rig.js';
import { FAKE_DISCORD_BOT } from './fake-discord.js';

afterEach(tearDown);

describe('the fake Discord gateway, driven by the real discord.js Client', () => {
  it('logs the client in: gateway from REST, IDENTIFY with the intents, READY and GUILD_CREATE', async () => {
    const { fake, client } = await setUp();
    await login(client);

    expect(fake.api.callsTo('GET', /^\/gateway\/bot$/)).toHaveLength(1);
    expect(fake.gateway.identifies).toHaveLength(1);
    expect(fake.gateway.identifies[0]!.token).toBe(TOKEN);
    expect(fake.gateway.identifies[0]!.intents).toBe(
      GatewayIntentBits.Guilds | GatewayIntentBits.GuildMessages | GatewayIntentBits.DirectMessages,
    );
    expect(client.user?.id).toBe(FAKE_DISCORD_BOT.userId);
    expect(client.application?.id).toBe(FAKE_DISCORD_BOT.applicationId);
    const guild = client.guilds.cache.get(GUILD);
    expect(guild?.channels.cache.get(CHANNEL)?.name).toBe('ops');
    expect(guild?.members.cache.get(ALICE.id)?.roles.cache.has(OPERATORS_ROLE)).toBe(true);
  });

  it('answers heartbeats, so the client measures a ping and stays connected', async () => {
    const { fake, client } = await setUp({ heartbeatIntervalMs: 50 });
    await login(client);
    const acknowledged = new Promise<void>((resolve) => {
      const onDebug = (line: string) => {
        if (!line.includes('Heartbeat acknowledged')) return;
        client.off(Events.Debug, onDebug);
        resolve();
      };
      client.on(Events.Debug, onDebug);
    });
    await acknowledged;
    expect(fake.gateway.heartbeats).toBeGreaterThan(0);
    expect(fake.gateway.resumes).toHaveLength(0);
  });

  it('delivers a mention with its member roles, and records the reply and a thread started from it', async () => {
    const { fake, client } = await setUp();
    await login(client);
    const received = next<Message>(client, Events.MessageCreate);
    const sent = fake.sendMessage({
      channelId: CHANNEL,
      author: ALICE,
      content: 'restart the api',
      mentionBot: true,
      roles: [OPERATORS_ROLE],
    });
    const message = await received;

    expect(message.id).toBe(sent.id);
    expect(message.content).toBe(`<@${FAKE_DISCORD_BOT.userId}> restart the api`);
    expect(message.mentions.users.has(FAKE_DISCORD_BOT.userId)).toBe(true);
    expect(message.member?.roles.cache.has(OPERATORS_ROLE)).toBe(true);

    if (!message.channel.isSendable()) throw new Error('the ops channel is not sendable');
    const reply = await message.channel.send({ content: 'on it', allowedMentions: { parse: [] } });
    const thread = await message.startThread({ name: 'restart the api' });
    await thread.send('working in the thread');

    const posts = fake.api.callsTo('POST', new RegExp(`^/channels/${CHANNEL}/messages$`));
    expect(posts).toHaveLength(1);
    expect(posts[0]!.body).toMatchObject({ content: 'on it', allowed_mentions: { parse: [] } });
    expect(fake.messages(CHANNEL).map((posted) => posted.content)).toEqual([
      `<@${FAKE_DISCORD_BOT.userId}> restart the api`,
      'on it',
    ]);
    expect(reply.id).toBe(fake.messages(CHANNEL)[1]!.id);
    expect(thread.id).toBe(sent.id);
    expect(thread.isThread()).toBe(true);
    expect(fake.api.threads(CHANNEL).map((known) => known.name)).toEqual(['restart the api']);
    expect(fake.messages(thread.id).map((posted) => posted.content)).toEqual(['working in the thread']);

    await reply.edit('done');
    expect(fake.api.message(reply.id)).toMatchObject({ content: 'done', history: [{ content: 'on it' }] });
  });

  it('delivers a reply in a thread the bot started, and one in a thread that existed before login', async () => {
    const { fake, client } = await setUp();
    fake.api.addThread(CHANNEL, { id: '800000000000000009', name: 'older run' });
    await login(client);
    expect(client.channels.cache.get('800000000000000009')?.isThread()).toBe(true);
    const created = new Promise<string>((resolve) =>
      client.once(Events.ThreadCreate, (thread, newlyCreated) => resolve(`${thread.id}:${newlyCreated}`)),
    );
    const first = next<Message>(client, Events.MessageCreate);
    fake.sendMessage({ channelId: CHANNEL, author: ALICE, content: 'check disk', mentionBot: true });
    const thread = await (await first).startThread({ name: 'check disk' });
    expect(await created).toBe(`${thread.id}:true`);

    const replies: Message[] = [];
    const two = new Promise<void>((resolve) =>
      client.on(Events.MessageCreate, (message) => {
        replies.push(message);
        if (replies.length === 2) resolve();
      }),
    );
    fake.sendMessage({ channelId: thread.id, author: ALICE, content: 'yes', mentionBot: true });
    fake.sendMessage({ channelId: '800000000000000009', author: ALICE, content: 'again', mentionBot: true });
    await two;
    expect(replies.map((reply) => [reply.channelId, reply.channel.isThread()])).toEqual([
      [thread.id, true],
      ['800000000000000009', true],
    ]);
  });

  it('delivers a DM with its content, and the reply goes to the DM channel', async () => {
    const { fake, client } = await setUp();
    await login(client);
    const dm = fake.api.dmChannel(ALICE);
    const received = next<Message>(client, Events.MessageCreate);
    fake.sendMessage({ channelId: dm.id, author: ALICE, content: 'status' });
    const message = await received;

    expect(message.guildId).toBeNull();
    expect(message.content).toBe('status');
    await message.reply({ content: 'all green', allowedMentions: { parse: [] } });
    expect(fake.messages(dm.id).map((posted) => posted.content)).toEqual(['status', 'all green']);
  });

  it('blanks content without MessageContent unless the bot is mentioned or it is a DM', async () => {
    const { fake, client } = await setUp();
    await login(client);
    const contents: string[] = [];
    const three = new Promise<void>((resolve) => {
      client.on(Events.MessageCreate, (message) => {
        contents.push(message.content);
        if (contents.length === 3) resolve();
      });
    });
    fake.sendMessage({ channelId: CHANNEL, author: ALICE, content: 'plain chatter' });
    fake.sendMessage({ channelId: CHANNEL, author: ALICE, content: 'deploy', mentionBot: true });
    fake.sendMessage({ channelId: fake.api.dmChannel(ALICE).id, author: ALICE, content: 'whoami' });
    await three;
    expect(contents).toEqual(['', `<@${FAKE_DISCORD_BOT.userId}> deploy`, 'whoami']);
  });

  it('delivers full content when the client has MessageContent', async () => {
    const { fake, client } = await setUp({ messageContent: true });
    await login(client);
    expect(fake.gateway.identifies[0]!.intents & GatewayIntentBits.MessageContent).not.toBe(0);
    const received = next<Message>(client, Events.MessageCreate);
    fake.sendMessage({ channelId: CHANNEL, author: ALICE, content: 'plain chatter' });
    expect((await received).content).toBe('plain chatter');
  });

  it('resumes after a dropped socket: the missed event arrives once, and nothing already seen comes again', async () => {
    const { fake, client } = await setUp();
    await login(client);
    await fake.gateway.sessionsStarted();
    const seen: string[] = [];
    client.on(Events.MessageCreate, (message) => seen.push(message.id));
    const first = next<Message>(client, Events.MessageCreate);
    const before = fake.sendMessage({
      channelId: CHANNEL,
      author: ALICE,
      content: 'before',
      mentionBot: true,
    });
    await first;
    const resumed = new Promise<void>((resolve) => client.once(Events.ShardResume, () => resolve()));

    fake.dropConnections();
    const missed = fake.sendMessage({ channelId: CHANNEL, author: ALICE, content: 'away', mentionBot: true });
    await fake.gateway.resumed();
    await resumed;
    const after = next<Message>(client, Events.MessageCreate);
    const later = fake.sendMessage({ channelId: CHANNEL, author: ALICE, content: 'back', mentionBot: true });
    await after;

    expect(fake.gateway.identifies).toHaveLength(1);
    // READY is 1, GUILD_CREATE 2 and the first message 3: the client resumes from what it had.
    expect(fake.gateway.resumes).toEqual([{ token: TOKEN, session_id: 'fake-session-1', seq: 3 }]);
    expect(seen).toEqual([before.id, missed.id, later.id]);
  });

  it('sends guild messages only for GuildMessages and DMs only for DirectMessages', async () => {
    const { fake, client } = await setUp({
      intents: [GatewayIntentBits.Guilds, GatewayIntentBits.DirectMessages],
    });
    await login(client);
    const received = next<Message>(client, Events.MessageCreate);
    fake.sendMessage({ channelId: CHANNEL, author: ALICE, content: 'in the guild', mentionBot: true });
    const dm = fake.sendMessage({
      channelId: fake.api.dmChannel(ALICE).id,
      author: ALICE,
      content: 'in a DM',
    });

    expect((await received).id).toBe(dm.id);
    expect(fake.messages(CHANNEL).map((message) => message.content)).toEqual([
      `<@${FAKE_DISCORD_BOT.userId}> in the guild`,
    ]);
  });

  it('closes IDENTIFY with 4014 when MessageContent is requested and refused', async () => {
    const { fake, client } = await setUp({ messageContent: true, refuseMessageContent: true });
    const disconnected = new Promise<number>((resolve) =>
      client.once(Events.ShardDisconnect, (event) => resolve(event.code)),
    );
    const login = client.login(TOKEN).catch((error: unknown) => error);

    expect(await disconnected).toBe(4014);
    await fake.gateway.closedWith(4014);
    expect(fake.gateway.identifies).toHaveLength(1);
    expect(client.isReady()).toBe(false);
    await client.destroy();
    await login;
  });
});
