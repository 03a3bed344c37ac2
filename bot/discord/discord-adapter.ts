// Discord on the real discord.js Client: gateway events in (mentions, thread replies, DMs, /ops, buttons), each
// acknowledged at once and handed to the chat intake; messages out through the Discord ChatPort.
import {
  ChatInputCommandInteraction,
  Client,
  Events,
  GatewayIntentBits,
  type Interaction,
  MessageFlags,
  Partials,
} from 'discord.js';
import type { Clock } from '../../agent/clock.js';
import { errorMessage } from '../../agent/errors.js';
import type { Logger } from '../../agent/logger.js';
import type { PermissionSettings } from '../../agent/policy/permission-settings.js';
import type { Store } from '../../agent/store/store.js';
import { actionFromButton, type ChatEvent } from '../chat/chat-event.js';
import { type ChatEventHandler, EventIntake } from '../chat/event-intake.js';
import { DiscordChatPort } from './discord-chat-port.js';
import { discordPrincipal } from './discord-identity.js';
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
  /** connecting, ready or reconnecting, for /readyz. */
  state(): 'connecting' | 'ready' | 'reconnecting';
  /** Resolves once every event received so far has been handled (tests, shutdown). */
  idle(): Promise<void>;
  stop(): Promise<void>;
}

type RawPacket = { t?: string | null; d?: unknown };

export async function startDiscord(options: StartDiscordOptions): Promise<DiscordAdapter> {
  const { logger } = options;
  const client = new Client({
    intents: [
      GatewayIntentBits.Guilds,
      GatewayIntentBits.GuildMessages,
      GatewayIntentBits.DirectMessages,
      ...(options.messageContent ? [GatewayIntentBits.MessageContent] : []),
    ],
    // A DM channel the client has not cached reaches it only with this partial.
    partials: [Partials.Channel],
    ...(options.apiUrl ? { rest: { api: options.apiUrl } } : {}),
  });
  const port = new DiscordChatPort({ rest: client.rest, clock: options.clock });
  const intake = new EventIntake({ store: options.store, handler: options.router, logger });
  const self = { botUserId: '', allowedBotIds: new Set(options.allowedBotIds) };
  /** Raw INTERACTION_CREATE payloads, checked with zod, until discord.js hands over the interaction object. */
  const rawInteractions = new Map<string, IncomingDiscordInteraction>();
  let state: 'connecting' | 'ready' | 'reconnecting' = 'connecting';

  client.on(Events.Raw, (packet: RawPacket) => {
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
  client.on(Events.InteractionCreate, (interaction) => void onInteraction(interaction));
  client.on(Events.ShardDisconnect, () => (state = 'reconnecting'));
  client.on(Events.ShardResume, () => (state = 'ready'));
  client.on(Events.Error, (error) => logger.warn({ err: errorMessage(error) }, 'Discord client error'));

  async function onMessage(raw: unknown): Promise<void> {
    const normalized = normalizeDiscordMessage(raw, placeOf(raw), self);
    if (!normalized.ok) return logger.debug({ skip: normalized.skip }, 'ignored a Discord message');
    const incoming = normalized.value;
    if (incoming.startThread) port.nameThread(incoming.startThread.messageId, incoming.startThread.name);
    const conversation = incoming.startThread
      ? { ...incoming.conversation, threadId: incoming.startThread.messageId }
      : incoming.conversation;
    await intake.receive({
      name: incoming.direct ? 'direct message' : 'message',
      build: async () =>
        ({
          kind: 'message',
          eventId: incoming.eventId,
          principal: discordPrincipal(options.permissions, incoming.author, incoming.member),
          conversation,
          text: incoming.text,
          mentioned: incoming.mentioned,
          direct: incoming.direct,
        }) satisfies ChatEvent,
      // A message has no private reply on Discord: the few router replies to one go to its conversation.
      reply: async (text) => {
        await port.post(conversation, { kind: 'text', text, tone: 'info' });
      },
    });
  }

  /** Where a raw message was posted, from the client's channel cache (a DM may be uncached: its payload says so). */
  function placeOf(raw: unknown): DiscordPlace {
    const { channel_id: channelId, channel_type: channelType } = (raw ?? {}) as {
      channel_id?: string;
      channel_type?: number;
    };
    const channel = channelId ? client.channels.cache.get(channelId) : undefined;
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

  async function onInteraction(interaction: Interaction): Promise<void> {
    const incoming = rawInteractions.get(interaction.id);
    rawInteractions.delete(interaction.id);
    if (!incoming || !interaction.isRepliable()) return;
    const principal = discordPrincipal(options.permissions, incoming.author, incoming.member);
    const conversation = conversationOf(incoming.channelId);
    if (incoming.input.kind === 'button') {
      const action = actionFromButton(incoming.input.intent);
      await intake.receive({
        name: 'button',
        // Within the 3 s: the card is updated in place by the run, so the click itself shows nothing new.
        ack: async () => {
          if (interaction.isButton()) await interaction.deferUpdate();
        },
        build: async () => ({
          kind: 'action',
          eventId: incoming.eventId,
          principal,
          conversation,
          ...action,
        }),
        reply: async (text) => {
          await interaction.followUp({
            content: text,
            flags: MessageFlags.Ephemeral,
            allowedMentions: { parse: [] },
          });
        },
      });
      return;
    }
    const text = incoming.input.text;
    let replied = false;
    await intake.receive({
      name: 'slash command',
      ack: async () => {
        if (interaction instanceof ChatInputCommandInteraction)
          await interaction.deferReply({ flags: MessageFlags.Ephemeral });
      },
      build: async () => ({ kind: 'command', eventId: incoming.eventId, principal, conversation, text }),
      reply: async (answer) => {
        replied = true;
        await interaction.editReply({ content: answer.slice(0, 2000), allowedMentions: { parse: [] } });
      },
    });
    // A task gets no private answer: say where the work goes, so the deferred reply does not hang.
    void intake.idle().then(async () => {
      if (!replied)
        await interaction
          .editReply({
            content: 'On it: the answer comes in the thread under the task.',
            allowedMentions: { parse: [] },
          })
          .catch((error) => logger.warn({ err: errorMessage(error) }, 'could not close a deferred reply'));
    });
  }

  /** An interaction's channel as a conversation: a thread is its parent's thread; a DM its own channel. */
  function conversationOf(channelId: string) {
    const channel = client.channels.cache.get(channelId);
    if (channel?.isThread() && channel.parentId)
      return { platform: 'discord' as const, channelId: channel.parentId, threadId: channel.id };
    const name = channel && 'name' in channel && typeof channel.name === 'string' ? channel.name : undefined;
    return { platform: 'discord' as const, channelId, ...(name ? { channelName: name } : {}) };
  }

  const ready = new Promise<void>((resolve) => client.once(Events.ClientReady, () => resolve()));
  await client.login(options.token);
  await ready;
  state = 'ready';
  self.botUserId = client.user?.id ?? '';
  logger.info(
    { botUserId: self.botUserId, messageContent: options.messageContent },
    `Discord adapter started${options.messageContent ? '' : ' without the MessageContent intent (plain thread replies need a mention)'}`,
  );
  return {
    port,
    botUserId: self.botUserId,
    state: () => state,
    idle: () => intake.idle(),
    async stop() {
      await client.destroy();
    },
  };
}
