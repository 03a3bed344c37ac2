// The API shapes discord.js reads: users, channels, messages, GUILD_CREATE and interactions, built from the fake's state.
import type {
  FakeDiscordChannel,
  FakeDiscordGuild,
  FakeDiscordMessage,
  FakeDiscordUser,
} from './fake-discord-state.js';

const EPOCH = Date.parse('2026-01-01T00:00:00.000Z');

export function userPayload(user: FakeDiscordUser) {
  return {
    id: user.id,
    username: user.username,
    discriminator: '0',
    global_name: null,
    avatar: null,
    ...(user.bot ? { bot: true } : {}),
  };
}

export function channelPayload(channel: FakeDiscordChannel, position = 0) {
  if (channel.type === 1) {
    return { id: channel.id, type: 1, recipients: channel.recipient ? [userPayload(channel.recipient)] : [] };
  }
  return {
    id: channel.id,
    type: channel.type,
    name: channel.name,
    ...(channel.guildId ? { guild_id: channel.guildId } : {}),
    ...(channel.parentId ? { parent_id: channel.parentId } : {}),
    ...(channel.type === 11
      ? {
          thread_metadata: {
            archived: false,
            auto_archive_duration: 1440,
            archive_timestamp: new Date(EPOCH).toISOString(),
            locked: false,
          },
          message_count: 0,
          member_count: 1,
        }
      : { position, permission_overwrites: [] }),
  };
}

export function messagePayload(message: FakeDiscordMessage, guildId?: string) {
  return {
    id: message.id,
    channel_id: message.channelId,
    ...(guildId ? { guild_id: guildId } : {}),
    author: userPayload(message.author),
    content: message.content,
    timestamp: new Date(EPOCH).toISOString(),
    edited_timestamp: message.history.length > 0 ? new Date(EPOCH).toISOString() : null,
    tts: false,
    mention_everyone: false,
    mentions: [],
    mention_roles: [],
    attachments: message.attachments.map((attachment) => ({
      id: attachment.id,
      filename: attachment.filename,
      size: Buffer.byteLength(attachment.content),
      url: `https://cdn.invalid/attachments/${message.channelId}/${attachment.id}/${attachment.filename}`,
      proxy_url: `https://media.invalid/attachments/${message.channelId}/${attachment.id}/${attachment.filename}`,
    })),
    embeds: message.embeds,
    components: message.components,
    pinned: false,
    type: 0,
    flags: 0,
  };
}

export function guildCreatePayload(
  guild: FakeDiscordGuild,
  channels: FakeDiscordChannel[],
  botUser: FakeDiscordUser,
) {
  const joinedAt = new Date(EPOCH).toISOString();
  const members = [{ user: botUser, roles: [] as string[] }, ...guild.members];
  return {
    id: guild.id,
    name: guild.name,
    unavailable: false,
    owner_id: guild.members[0]?.user.id ?? botUser.id,
    joined_at: joinedAt,
    member_count: members.length,
    large: false,
    features: [],
    emojis: [],
    stickers: [],
    roles: guild.roles.map((role, index) => ({
      id: role.id,
      name: role.name,
      color: 0,
      hoist: false,
      position: index,
      permissions: index === 0 ? '68608' : '0',
      managed: false,
      mentionable: false,
      flags: 0,
    })),
    members: members.map((member) => ({
      user: userPayload(member.user),
      roles: member.roles,
      joined_at: joinedAt,
      deaf: false,
      mute: false,
      flags: 0,
    })),
    channels: channels
      .filter((channel) => channel.type === 0)
      .map((channel, index) => channelPayload(channel, index)),
    threads: channels.filter((channel) => channel.type === 11).map((channel) => channelPayload(channel)),
    voice_states: [],
    presences: [],
    stage_instances: [],
    guild_scheduled_events: [],
  };
}

export function memberPayload(user: FakeDiscordUser, roles: string[]) {
  return {
    user: userPayload(user),
    roles,
    joined_at: new Date(EPOCH).toISOString(),
    deaf: false,
    mute: false,
    flags: 0,
  };
}
