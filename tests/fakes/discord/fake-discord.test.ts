// The real discord.js Client against the fake Discord: login, messages, interactions, 429s, resume and 4014.
import {
  ActionRowBuilder,
  ButtonBuilder,
  ButtonStyle,
  type ChatInputCommandInteraction,
  Client,
  Events,
  GatewayIntentBits,
  type Interaction,
  type Message,
  Partials,
} from 'discord.js';
import { afterEach, describe, expect, it } from 'vitest';
import { FAKE_DISCORD_BOT, type FakeDiscord, startFakeDiscord } from './fake-discord.js';

const GUILD = '800000000000000001';
const CHANNEL = '800000000000000002';
const OPERATORS_ROLE = '800000000000000003';
const ALICE = { id: '700000000000000001', username: 'alice' };
const TOKEN = 'MTAwMDAwMDAwMDAwMDAwMDAx.fake.token-for-tests';
const BASE_INTENTS = [
  GatewayIntentBits.Guilds,
  GatewayIntentBits.GuildMessages,
  GatewayIntentBits.DirectMessages,
];

let fake: FakeDiscord | undefined;
let client: Client | undefined;

afterEach(async () => {
  await client?.destroy();
  await fake?.close();
  client = undefined;
  fake = undefined;
});

async function setUp(
  options: { messageContent?: boolean; refuseMessageContent?: boolean; heartbeatIntervalMs?: number } = {},
) {
  const started = await startFakeDiscord(
    options.heartbeatIntervalMs ? { heartbeatIntervalMs: options.heartbeatIntervalMs } : {},
  );
  started.api
    .addGuild({ id: GUILD, name: 'ops team', channels: [{ id: CHANNEL, name: 'ops' }] })
    .addRole(GUILD, { id: OPERATORS_ROLE, name: 'operators' })
    .addMember(GUILD, ALICE, [OPERATORS_ROLE]);
  started.gateway.refuseMessageContent = options.refuseMessageContent ?? false;
  fake = started;
  const created = new Client({
    intents: options.messageContent ? [...BASE_INTENTS, GatewayIntentBits.MessageContent] : BASE_INTENTS,
    partials: [Partials.Channel],
    rest: { api: started.api.apiUrl },
  });
  client = created;
  return { fake: started, client: created };
}

async function login(bot: Client): Promise<void> {
  const ready = new Promise<void>((resolve) => bot.once(Events.ClientReady, () => resolve()));
  await bot.login(TOKEN);
  await ready;
}

function next<T>(bot: Client, event: Events.MessageCreate | Events.InteractionCreate): Promise<T> {
  return new Promise((resolve) => bot.once(event, (value: unknown) => resolve(value as T)));
}

describe('the fake Discord, driven by the real discord.js Client', () => {
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

  it('defers a slash command and edits the reply through the interaction webhook', async () => {
    const { fake, client } = await setUp();
    await login(client);
    const received = next<Interaction>(client, Events.InteractionCreate);
    const sent = fake.slashCommand({
      channelId: CHANNEL,
      user: ALICE,
      roles: [OPERATORS_ROLE],
      options: { task: 'help' },
    });
    const interaction = (await received) as ChatInputCommandInteraction;

    expect(interaction.isChatInputCommand()).toBe(true);
    expect(interaction.commandName).toBe('ops');
    expect(interaction.options.getString('task')).toBe('help');
    if (!interaction.inCachedGuild()) throw new Error('expected an interaction in a cached guild');
    expect(interaction.member.roles.cache.has(OPERATORS_ROLE)).toBe(true);
    await interaction.deferReply({ flags: 64 });
    await interaction.editReply({ content: 'here is the help', allowedMentions: { parse: [] } });
    const more = await interaction.followUp({ content: 'and more', flags: 64 });

    const callback = fake.api.callsTo('POST', /^\/interactions\/\d+\/[^/]+\/callback$/);
    expect(callback).toHaveLength(1);
    expect(callback[0]!.route).toBe(`/interactions/${sent.id}/${sent.token}/callback`);
    expect(callback[0]!.body).toEqual({ type: 5, data: { flags: 64 } });
    expect(callback[0]!.status).toBe(204);
    const edit = fake.api.callsTo('PATCH', /\/messages\/@original$/);
    expect(edit[0]!.route).toBe(
      `/webhooks/${FAKE_DISCORD_BOT.applicationId}/${sent.token}/messages/@original`,
    );
    expect(fake.api.callsTo('POST', /^\/webhooks\//)[0]!.query.get('wait')).toBe('true');
    expect(more.content).toBe('and more');
    expect(fake.messages(CHANNEL).map((posted) => posted.content)).toEqual(['here is the help', 'and more']);
  });

  it('answers a second acknowledgement of one interaction with 40060', async () => {
    const { fake, client } = await setUp();
    await login(client);
    const received = next<Interaction>(client, Events.InteractionCreate);
    fake.slashCommand({ channelId: CHANNEL, user: ALICE, options: { task: 'status' } });
    const interaction = (await received) as ChatInputCommandInteraction;
    await interaction.reply('first');
    // discord.js refuses a second reply itself, so go around it through the REST client.
    await expect(
      client.rest.post(`/interactions/${interaction.id}/${interaction.token}/callback`, {
        body: { type: 4, data: { content: 'second' } },
        auth: false,
      }),
    ).rejects.toMatchObject({ code: 40060 });
    expect(fake.messages(CHANNEL).map((posted) => posted.content)).toEqual(['first']);
  });

  it('updates the card a button sits on', async () => {
    const { fake, client } = await setUp();
    await login(client);
    const channel = client.channels.cache.get(CHANNEL);
    if (!channel?.isSendable()) throw new Error('the ops channel is not sendable');
    const card = await channel.send({
      content: 'Approve restart?',
      components: [
        new ActionRowBuilder<ButtonBuilder>().addComponents(
          new ButtonBuilder().setCustomId('approve:run1').setLabel('Approve').setStyle(ButtonStyle.Success),
        ),
      ],
    });
    const received = next<Interaction>(client, Events.InteractionCreate);
    fake.clickButton({ channelId: CHANNEL, user: ALICE, messageId: card.id, customId: 'approve:run1' });
    const interaction = await received;
    if (!interaction.isButton()) throw new Error('expected a button interaction');

    expect(interaction.customId).toBe('approve:run1');
    expect(interaction.message.id).toBe(card.id);
    await interaction.update({ content: 'Approved by alice', components: [] });

    expect(fake.api.callsTo('POST', /\/callback$/)[0]!.body).toMatchObject({ type: 7 });
    expect(fake.api.message(card.id)).toMatchObject({
      content: 'Approved by alice',
      components: [],
      history: [{ content: 'Approve restart?' }],
    });
  });

  it('waits out a 429 and retries the call', async () => {
    const { fake, client } = await setUp();
    await login(client);
    const limited = new Promise<number>((resolve) =>
      client.rest.once('rateLimited', (info) => resolve(info.retryAfter)),
    );
    fake.api.rateLimitNext(/^POST \/channels\/\d+\/messages$/, 0.05);
    const channel = client.channels.cache.get(CHANNEL);
    if (!channel?.isSendable()) throw new Error('the ops channel is not sendable');
    const message = await channel.send('after the limit');

    // discord.js adds its default 50 ms offset to the Retry-After it was given.
    expect(await limited).toBeGreaterThanOrEqual(50);
    expect(await limited).toBeLessThan(1_000);
    const posts = fake.api.callsTo('POST', /^\/channels\/\d+\/messages$/);
    expect(posts.map((call) => call.status)).toEqual([429, 200]);
    expect(fake.messages(CHANNEL).map((posted) => posted.id)).toEqual([message.id]);
  });

  it('resumes after a dropped socket and delivers the event missed meanwhile exactly once', async () => {
    const { fake, client } = await setUp();
    await login(client);
    const seen: string[] = [];
    client.on(Events.MessageCreate, (message) => seen.push(message.id));
    const resumed = new Promise<void>((resolve) => client.once(Events.ShardResume, () => resolve()));

    fake.dropConnections();
    const missed = fake.sendMessage({
      channelId: CHANNEL,
      author: ALICE,
      content: 'while away',
      mentionBot: true,
    });
    await fake.gateway.resumed();
    await resumed;
    const after = next<Message>(client, Events.MessageCreate);
    const later = fake.sendMessage({ channelId: CHANNEL, author: ALICE, content: 'back', mentionBot: true });
    await after;

    expect(fake.gateway.identifies).toHaveLength(1);
    expect(fake.gateway.resumes[0]).toMatchObject({ session_id: 'fake-session-1' });
    expect(seen).toEqual([missed.id, later.id]);
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

  it('bulk-overwrites global and guild commands', async () => {
    const { fake, client } = await setUp();
    await login(client);
    const command = {
      name: 'ops',
      description: 'Ask opsbot',
      options: [{ name: 'task', description: 'What to do', type: 3, required: true }],
    };
    const global = await client.application!.commands.set([command]);
    const guild = await client.application!.commands.set([command], GUILD);

    expect(global.first()?.name).toBe('ops');
    expect(guild.first()?.guildId).toBe(GUILD);
    expect(fake.api.callsTo('PUT', /commands$/).map((call) => call.route)).toEqual([
      `/applications/${FAKE_DISCORD_BOT.applicationId}/commands`,
      `/applications/${FAKE_DISCORD_BOT.applicationId}/guilds/${GUILD}/commands`,
    ]);
    expect(fake.api.commands.get(GUILD)).toMatchObject([{ name: 'ops' }]);
  });
});
