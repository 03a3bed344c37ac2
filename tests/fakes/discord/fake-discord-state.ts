// What the fake Discord holds: the bot, its guilds, channels and threads, and every message posted or edited.

export const FAKE_DISCORD_BOT = {
  userId: '900000000000000001',
  applicationId: '900000000000000002',
  username: 'opsbot',
} as const;

/** GatewayIntentBits values, kept here so the fake needs no discord.js import. */
export const GUILD_MESSAGES_INTENT = 1 << 9;
export const DIRECT_MESSAGES_INTENT = 1 << 12;
export const MESSAGE_CONTENT_INTENT = 1 << 15;

export interface FakeDiscordUser {
  id: string;
  username: string;
  bot?: boolean;
}

export interface FakeDiscordChannel {
  id: string;
  /** 0 guild text, 1 DM, 11 public thread. */
  type: number;
  name: string;
  guildId?: string;
  /** For a thread: the text channel it sits in. */
  parentId?: string;
  /** For a DM: the other person. */
  recipient?: FakeDiscordUser;
}

export interface FakeDiscordGuild {
  id: string;
  name: string;
  channelIds: string[];
  roles: Array<{ id: string; name: string }>;
  members: Array<{ user: FakeDiscordUser; roles: string[] }>;
}

/** A file the bot uploaded with a message, read as text. */
export interface FakeDiscordAttachment {
  id: string;
  filename: string;
  content: string;
}

/** A message as it stands; `history` holds each earlier version, oldest first. */
export interface FakeDiscordMessage {
  id: string;
  channelId: string;
  author: FakeDiscordUser;
  content: string;
  embeds: unknown[];
  components: unknown[];
  attachments: FakeDiscordAttachment[];
  /** What the sender asked for, to check that nobody gets pinged. */
  allowedMentions?: unknown;
  /** Set when this message came in through an interaction webhook. */
  interactionToken?: string;
  threadId?: string;
  history: Array<{ content: string; embeds: unknown[]; components: unknown[] }>;
}

export class FakeDiscordState {
  readonly guilds = new Map<string, FakeDiscordGuild>();
  readonly channels = new Map<string, FakeDiscordChannel>();
  readonly allMessages: FakeDiscordMessage[] = [];
  private counter = 0;

  /** A numeric snowflake, increasing, as discord.js sorts and parses ids. */
  nextId(): string {
    this.counter += 1;
    return String(1_300_000_000_000_000_000n + BigInt(this.counter));
  }

  addGuild(guild: { id: string; name: string; channels: Array<{ id: string; name: string }> }): this {
    const roles = [{ id: guild.id, name: '@everyone' }];
    this.guilds.set(guild.id, {
      id: guild.id,
      name: guild.name,
      channelIds: guild.channels.map((channel) => channel.id),
      roles,
      members: [],
    });
    for (const channel of guild.channels) {
      this.channels.set(channel.id, { id: channel.id, type: 0, name: channel.name, guildId: guild.id });
    }
    return this;
  }

  addRole(guildId: string, role: { id: string; name: string }): this {
    this.guild(guildId).roles.push(role);
    return this;
  }

  addMember(guildId: string, user: FakeDiscordUser, roles: string[] = []): this {
    this.guild(guildId).members.push({ user, roles });
    return this;
  }

  /** A public thread that already exists in `parentId`; GUILD_CREATE lists it. */
  addThread(parentId: string, thread: { id: string; name: string }): this {
    const parent = this.channels.get(parentId);
    if (!parent?.guildId) throw new Error(`the fake has no guild channel ${parentId}`);
    this.channels.set(thread.id, {
      id: thread.id,
      type: 11,
      name: thread.name,
      parentId,
      guildId: parent.guildId,
    });
    return this;
  }

  /** The DM channel between the bot and `user`, made on first use. */
  dmChannel(user: FakeDiscordUser): FakeDiscordChannel {
    const existing = [...this.channels.values()].find(
      (channel) => channel.type === 1 && channel.recipient?.id === user.id,
    );
    if (existing) return existing;
    const channel: FakeDiscordChannel = { id: this.nextId(), type: 1, name: '', recipient: user };
    this.channels.set(channel.id, channel);
    return channel;
  }

  guild(guildId: string): FakeDiscordGuild {
    const guild = this.guilds.get(guildId);
    if (!guild) throw new Error(`the fake has no guild ${guildId}`);
    return guild;
  }

  /** Messages in a channel or thread, in the order they were posted. */
  messages(channelId: string): FakeDiscordMessage[] {
    return this.allMessages.filter((message) => message.channelId === channelId);
  }

  message(messageId: string): FakeDiscordMessage | undefined {
    return this.allMessages.find((message) => message.id === messageId);
  }

  threads(parentId?: string): FakeDiscordChannel[] {
    return [...this.channels.values()].filter(
      (channel) => channel.type === 11 && (parentId === undefined || channel.parentId === parentId),
    );
  }
}
