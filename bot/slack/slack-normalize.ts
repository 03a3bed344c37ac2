// Turns validated Slack payloads into the pieces of a ChatEvent, deciding which messages the bot must ignore.
import type { Conversation } from '../../agent/conversation.js';
import { type ButtonIntent, decodeButton } from '../chat/button-codec.js';
import {
  type BlockActions,
  EventEnvelopeSchema,
  type MessageEvent,
  MessageEventSchema,
  type SlashCommand,
} from './slack-payloads.js';

export interface BotSelf {
  botUserId: string;
  botId?: string;
  /** Other bots whose messages are handled; every other bot is ignored, which stops bot loops. */
  allowedBotIds: ReadonlySet<string>;
}

export interface IncomingMessage {
  eventId: string;
  userId: string;
  conversation: Conversation;
  text: string;
  mentioned: boolean;
  direct: boolean;
}

export type Normalized<T> = { ok: true; value: T } | { ok: false; skip: string };

/** User messages, and replies broadcast to the channel or carrying files; edits, joins and deletions are not. */
const HANDLED_SUBTYPES: ReadonlySet<string | undefined> = new Set([
  undefined,
  'thread_broadcast',
  'file_share',
  'bot_message',
]);

export function normalizeMessageEvent(body: unknown, self: BotSelf): Normalized<IncomingMessage> {
  const envelope = EventEnvelopeSchema.safeParse(body);
  if (!envelope.success) return skip('an event envelope without an event_id');
  const parsed = MessageEventSchema.safeParse(envelope.data.event);
  if (!parsed.success) return skip('a message event in an unexpected shape');
  const event = parsed.data;
  const ignored = ignoredReason(event, self);
  if (ignored) return skip(ignored);
  const direct = event.type === 'message' && event.channel_type === 'im';
  const mentioned = event.type === 'app_mention' || mentions(event.text, self.botUserId);
  if (event.type === 'message' && !direct) {
    // In channels, a mention also arrives as app_mention under another event_id; handling both would run twice.
    if (mentioned) return skip('a channel mention, handled through its app_mention event');
    if (!event.thread_ts) return skip('a top-level channel message without a mention');
  }
  return {
    ok: true,
    value: {
      eventId: envelope.data.event_id,
      userId: event.user ?? event.bot_id ?? 'unknown',
      conversation: {
        platform: 'slack',
        channelId: event.channel,
        threadId: event.thread_ts ?? event.ts,
        ...workspace(envelope.data.team_id),
      },
      text: withoutMention(event.text, self.botUserId),
      mentioned,
      direct,
    },
  };
}

function ignoredReason(event: MessageEvent, self: BotSelf): string | undefined {
  if (!HANDLED_SUBTYPES.has(event.subtype)) return `a message of subtype ${event.subtype}`;
  if (event.user === self.botUserId || (self.botId !== undefined && event.bot_id === self.botId))
    return 'our own message';
  const bot = event.bot_id ?? (event.subtype === 'bot_message' ? 'unknown bot' : undefined);
  if (bot !== undefined && !self.allowedBotIds.has(bot)) return `a message from another bot (${bot})`;
  if (!event.user && !event.bot_id) return 'a message without an author';
  return undefined;
}

function mentions(text: string, botUserId: string): boolean {
  return text.includes(`<@${botUserId}>`) || text.includes(`<@${botUserId}|`);
}

/** The bot's own `<@U…>` is how the message was addressed, not part of the task. */
export function withoutMention(text: string, botUserId: string): string {
  return text
    .replace(new RegExp(`<@${escapeRegExp(botUserId)}(\\|[^>]*)?>`, 'g'), ' ')
    .replace(/[ \t]{2,}/g, ' ')
    .trim();
}

export interface IncomingCommand {
  eventId: string;
  userId: string;
  conversation: Conversation;
  text: string;
}

export function normalizeCommand(command: SlashCommand): IncomingCommand {
  const name = command.channel_name;
  // Slack names DMs and private group DMs with placeholders, not channel names.
  const channelName = name && name !== 'directmessage' && name !== 'privategroup' ? name : undefined;
  return {
    // A command has no event_id; its trigger_id is unique per invocation.
    eventId: `command:${command.trigger_id}`,
    userId: command.user_id,
    conversation: {
      platform: 'slack',
      channelId: command.channel_id,
      ...(channelName ? { channelName } : {}),
      ...workspace(command.team_id),
    },
    text: command.text.trim(),
  };
}

export interface IncomingAction {
  eventId: string;
  userId: string;
  conversation: Conversation;
  /** The message holding the button, to update once the click has done its work. */
  messageTs: string;
  intent: ButtonIntent;
}

export function normalizeBlockAction(payload: BlockActions): Normalized<IncomingAction> {
  const action = payload.actions[0]!;
  const intent = decodeButton(action.value);
  if (!intent) return skip(`a button value we did not create (${action.action_id})`);
  const channelId = payload.channel?.id ?? payload.container?.channel_id;
  const messageTs = payload.message?.ts ?? payload.container?.message_ts;
  if (!channelId || !messageTs) return skip('a button click without its channel or message');
  const threadTs = payload.message?.thread_ts ?? payload.container?.thread_ts ?? messageTs;
  const channelName = payload.channel?.name;
  return {
    ok: true,
    value: {
      // Interactions are not retried by Slack, but one click must never count twice: click time, message, person.
      eventId: `action:${action.action_ts ?? payload.trigger_id ?? ''}:${messageTs}:${payload.user.id}`,
      userId: payload.user.id,
      conversation: {
        platform: 'slack',
        channelId,
        threadId: threadTs,
        ...(channelName && channelName !== 'directmessage' ? { channelName } : {}),
        ...workspace(payload.team?.id ?? payload.user.team_id),
      },
      messageTs,
      intent,
    },
  };
}

/** The Slack team a payload names, as the conversation's workspace (a click must come from the card's). */
function workspace(teamId: string | undefined): { workspaceId?: string } {
  return teamId ? { workspaceId: teamId } : {};
}

function skip<T>(reason: string): Normalized<T> {
  return { ok: false, skip: reason };
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
