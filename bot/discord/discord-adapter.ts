// Discord on the real discord.js Client: gateway events in (mentions, thread replies, DMs, /ops, buttons), each
// acknowledged at once and handed to the chat intake; messages out through the Discord ChatPort.
import { type Client, Events } from 'discord.js';
import type { Clock } from '../../agent/clock.js';
import { errorMessage } from '../../agent/errors.js';
import type { Logger } from '../../agent/logger.js';
import type { PermissionSettings } from '../../agent/policy/permission-settings.js';
import type { Store } from '../../agent/store/store.js';
import type { ChatEvent } from '../chat/chat-event.js';
import { type ChatEventHandler, EventIntake } from '../chat/event-intake.js';
import { DiscordChatPort } from './discord-chat-port.js';
import { discordPrincipal } from './discord-identity.js';
import { connectGateway, describeMessageContent, type MessageContentMode } from './discord-intents.js';
import { closeTaskReplies, DeferredTaskReplies, receiveInteraction } from './discord-interactions.js';
import {
  type DiscordPlace,
  type IncomingDiscordInteraction,
  normalizeDiscordInteraction,
  normalizeDiscordMessage,
} from './discord-normalize.js';

export interface StartDiscordOptions {
  token: string;
  /** DISCORD_API_URL: the REST base, and so the gateway lookup. */
  apiUrl?: string;
  router: ChatEventHandler;
  store: Pick<Store, 'claim'>;
  permissions: PermissionSettings;
  messageContent: boolean;
  allowedBotIds: readonly string[];
  clock: Clock;
  logger: Logger;
}

export interface DiscordAdapter {
  port: DiscordChatPort;
  botUserId: string;
  /** Whether plain messages are readable: on, off by the settings, or refused by Discord (4014). */
  messageContent: MessageContentMode;
  /** For /readyz: ready, or why not (a dropped socket is `reconnecting`; `disconnected` is final). */
  state(): DiscordGatewayState;
  /** Resolves once every event received so far has been handled (tests, shutdown). */
  idle(): Promise<void>;
  stop(): Promise<void>;
}

export type DiscordGatewayState = 'connecting' | 'ready' | 'reconnecting' | 'disconnected';

type RawPacket = { t?: string | null; d?: unknown };

export async function startDiscord(options: StartDiscordOptions): Promise<DiscordAdapter> {
  const { logger } = options;
  // The client is replaced once if Discord refuses MessageContent, so the port reaches REST through it late.
  let client: Client | undefined;
  const rest = () => {
    if (!client) throw new Error('the Discord client is not connected yet');
    return client.rest;
  };
  const port = new DiscordChatPort({
    rest: { post: (...args) => rest().post(...args), patch: (...args) => rest().patch(...args) },
    clock: options.clock,
  });
  const deferredReplies = new DeferredTaskReplies(options.clock);
  const intake = new EventIntake({
    store: options.store,
    handler: closeTaskReplies(options.router, deferredReplies),
    logger,
  });
  const self = { botUserId: '', allowedBotIds: new Set(options.allowedBotIds) };
  /** Raw INTERACTION_CREATE payloads, checked with zod, until discord.js hands over the interaction object. */
  const rawInteractions = new Map<string, IncomingDiscordInteraction>();
  let state: DiscordGatewayState = 'connecting';

  function listen(candidate: Client): void {
    client = candidate;
    candidate.on(Events.Raw, (packet: RawPacket) => {
      if (packet.t === 'MESSAGE_CREATE') void onMessage(packet.d);
      else if (packet.t === 'INTERACTION_CREATE') {
        const normalized = normalizeDiscordInteraction(packet.d);
        if (normalized.ok) rawInteractions.set(normalized.value.eventId, normalized.value);
        else logger.debug({ skip: normalized.skip }, 'ignored a Discord interaction');
      } else if (packet.t === 'THREAD_CREATE') {
        const thread = packet.d as { id?: unknown };
        if (typeof thread.id === 'string') port.knowThread(thread.id);
      }
    });
    candidate.on(Events.InteractionCreate, (interaction) => {
      const incoming = rawInteractions.get(interaction.id);
      rawInteractions.delete(interaction.id);
      if (!incoming) return;
      void receiveInteraction(interaction, incoming, {
        intake,
        port,
        clock: options.clock,
        logger,
        permissions: options.permissions,
        conversationOf,
        botInGuild: (guildId) => client?.guilds.cache.has(guildId) === true,
        deferredReplies,
      }).catch((error) =>
        logger.error({ err: errorMessage(error) }, 'could not receive a Discord interaction'),
      );
    });
    // A dropped socket is retried (reconnecting, then resumed or ready); a disconnect is final (bad token, 4014).
    candidate.on(Events.ShardReconnecting, () => (state = 'reconnecting'));
    candidate.on(Events.ShardResume, () => (state = 'ready'));
    candidate.on(Events.ShardReady, () => (state = 'ready'));
    candidate.on(Events.ShardDisconnect, () => (state = 'disconnected'));
    candidate.on(Events.Error, (error) => logger.warn({ err: errorMessage(error) }, 'Discord client error'));
  }

  async function onMessage(raw: unknown): Promise<void> {
    const normalized = normalizeDiscordMessage(raw, placeOf(raw), self);
    if (!normalized.ok) return logger.debug({ skip: normalized.skip }, 'ignored a Discord message');
    const incoming = normalized.value;
    if (incoming.startThread) port.nameThread(incoming.startThread.messageId, incoming.startThread.name);
    const conversation = incoming.startThread
      ? { ...incoming.conversation, threadId: incoming.startThread.messageId }
      : incoming.conversation;
    const principal = discordPrincipal(options.permissions, incoming.author, incoming.member);
    await intake.receive({
      name: incoming.direct ? 'direct message' : 'message',
      build: async () =>
        ({
          kind: 'message',
          eventId: incoming.eventId,
          principal,
          conversation,
          text: incoming.text,
          mentioned: incoming.mentioned,
          direct: incoming.direct,
        }) satisfies ChatEvent,
      // A message has no private reply on Discord: the few router replies to one go to its conversation. They are
      // written to the person ("you"), so outside a DM they name whom they answer.
      reply: async (text) => {
        const addressed = incoming.direct ? text : `${principal.displayName}: ${text}`;
        await port.post(conversation, { kind: 'text', text: addressed, tone: 'info' });
      },
    });
  }

  /** Where a raw message was posted, from the client's channel cache (a DM may be uncached: its payload says so). */
  function placeOf(raw: unknown): DiscordPlace {
    const { channel_id: channelId, channel_type: channelType } = (raw ?? {}) as {
      channel_id?: string;
      channel_type?: number;
    };
    const channel = channelId ? client?.channels.cache.get(channelId) : undefined;
    if (channelType === 1 || channel?.isDMBased()) return { kind: 'dm' };
    if (channel?.isThread() && channel.parentId) {
      port.knowThread(channel.id);
      const parent = channel.parent;
      return {
        kind: 'thread',
        parentId: channel.parentId,
        ...(parent?.name ? { parentName: parent.name } : {}),
      };
    }
    return { kind: 'text', ...(channel && 'name' in channel && channel.name ? { name: channel.name } : {}) };
  }

  /**
   * An interaction's channel as a conversation: a thread is its parent's thread; a DM its own channel. The guild
   * is the interaction's, so a click is checked against the server its card was posted in.
   */
  function conversationOf(channelId: string, guildId?: string) {
    const workspace = guildId ? { workspaceId: guildId } : {};
    const channel = client?.channels.cache.get(channelId);
    if (channel?.isThread() && channel.parentId)
      return {
        platform: 'discord' as const,
        channelId: channel.parentId,
        threadId: channel.id,
        ...workspace,
      };
    const name = channel && 'name' in channel && typeof channel.name === 'string' ? channel.name : undefined;
    return { platform: 'discord' as const, channelId, ...(name ? { channelName: name } : {}), ...workspace };
  }

  const connected = await connectGateway({
    token: options.token,
    ...(options.apiUrl ? { apiUrl: options.apiUrl } : {}),
    messageContent: options.messageContent,
    logger,
    prepare: listen,
  });
  client = connected.client;
  const messageContent = connected.mode;
  state = 'ready';
  self.botUserId = client.user?.id ?? '';
  logger.info(
    { botUserId: self.botUserId, messageContent },
    `Discord gateway ready as ${self.botUserId} · ${describeMessageContent(messageContent)}`,
  );
  return {
    port,
    botUserId: self.botUserId,
    messageContent,
    state: () => state,
    idle: () => intake.idle(),
    async stop() {
      await connected.client.destroy();
    },
  };
}
