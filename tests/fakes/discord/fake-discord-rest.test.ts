// The real discord.js Client against the fake REST API: interactions, buttons, 429s and command registration.
import {
  ActionRowBuilder,
  ButtonBuilder,
  ButtonStyle,
  type ChatInputCommandInteraction,
  Events,
  type Interaction,
} from 'discord.js';
import { afterEach, describe, expect, it } from 'vitest';
import { ALICE, CHANNEL, GUILD, login, next, OPERATORS_ROLE, setUp, tearDown } from './discord-client-rig.js';
import { FAKE_DISCORD_BOT } from './fake-discord.js';

afterEach(tearDown);

describe('the fake Discord REST API, driven by the real discord.js Client', () => {
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

  it('refuses an expired interaction: the click gets 10062 and its webhook 50027', async () => {
    const { fake, client } = await setUp();
    await login(client);
    const received = next<Interaction>(client, Events.InteractionCreate);
    const sent = fake.slashCommand({ channelId: CHANNEL, user: ALICE, options: { task: 'deploy' } });
    const interaction = (await received) as ChatInputCommandInteraction;
    fake.api.expireInteraction(sent.token);

    await expect(interaction.deferReply()).rejects.toMatchObject({ code: 10062, status: 404 });
    await expect(
      client.rest.post(`/webhooks/${FAKE_DISCORD_BOT.applicationId}/${sent.token}`, {
        body: { content: 'late result' },
        auth: false,
      }),
    ).rejects.toMatchObject({ code: 50027, status: 401 });
    expect(fake.messages(CHANNEL)).toEqual([]);
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

  it('reads an uploaded file into the message it came with', async () => {
    const { fake, client } = await setUp();
    await login(client);
    const channel = client.channels.cache.get(CHANNEL);
    if (!channel?.isSendable()) throw new Error('the ops channel is not sendable');
    const output = 'x'.repeat(20_000);
    const message = await channel.send({
      content: 'preview',
      files: [{ attachment: Buffer.from(output), name: 'output.txt' }],
      allowedMentions: { parse: [] },
    });

    const post = fake.api.callsTo('POST', /^\/channels\/\d+\/messages$/)[0]!;
    expect(post.headers['content-type']).toMatch(/^multipart\/form-data/);
    expect(post.body).toMatchObject({ content: 'preview', allowed_mentions: { parse: [] } });
    expect(fake.api.message(message.id)).toMatchObject({
      content: 'preview',
      attachments: [{ filename: 'output.txt', content: output }],
    });
    expect(message.attachments.first()?.name).toBe('output.txt');
    expect(message.attachments.first()?.size).toBe(20_000);
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
