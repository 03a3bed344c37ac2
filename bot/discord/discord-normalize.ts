// Turns Discord's gateway payloads (MESSAGE_CREATE, INTERACTION_CREATE), checked with zod, into the pieces of a
// ChatEvent, deciding which messages the bot must ignore and when a mention needs a thread of its own.
import { z } from 'zod';
import type { Conversation } from '../../agent/conversation.js';
import { type ButtonIntent, decodeButton } from '../chat/button-codec.js';
import { clip } from '../chat/split-text.js';
import { deniedApprovalId, REASON_INPUT_ID, reasonOf, toolOnCard } from './discord-deny-modal.js';
import type { DiscordAuthor, DiscordMember } from './discord-identity.js';

const Snowflake = z.string().regex(/^\d{1,20}$/);

const AuthorSchema = z.object({
  id: Snowflake,
  username: z.string(),
  global_name: z.string().nullish(),
  bot: z.boolean().optional(),
});

const MemberSchema = z.object({ nick: z.string().nullish(), roles: z.array(Snowflake).default([]) });

export const DiscordMessageSchema = z.object({
  id: Snowflake,
  channel_id: Snowflake,
  guild_id: Snowflake.optional(),
  author: AuthorSchema,
  member: MemberSchema.optional(),
  content: z.string().default(''),
  mentions: z.array(z.object({ id: Snowflake })).default([]),
  /** 0 is a default message, 19 a reply; system messages (joins, pins, thread starts) are other types. */
  type: z.number().int(),
});
export type DiscordMessage = z.infer<typeof DiscordMessageSchema>;

const EmbedField = z.object({ name: z.string(), value: z.string() });

const InteractionBase = {
  id: Snowflake,
  application_id: Snowflake,
  token: z.string().min(1),
  channel_id: Snowflake.optional(),
  guild_id: Snowflake.optional(),
  member: MemberSchema.extend({ user: AuthorSchema }).optional(),
  user: AuthorSchema.optional(),
};

export const DiscordInteractionSchema = z.discriminatedUnion('type', [
  z.object({
    ...InteractionBase,
    type: z.literal(2),
    data: z.object({
      name: z.string(),
      options: z.array(z.object({ name: z.string(), type: z.number(), value: z.unknown() })).default([]),
    }),
  }),
  z.object({
    ...InteractionBase,
    type: z.literal(3),
    data: z.object({ custom_id: z.string(), component_type: z.number() }),
    /** The card the button sits on; its embeds name the tool for a deny modal's title (and nothing else). */
    message: z
      .object({ embeds: z.array(z.object({ fields: z.array(EmbedField).default([]) })).default([]) })
      .optional()
      .catch(undefined),
  }),
  /** A modal submitted: its custom_id, and each action row's inputs with what was typed (max 4,000). */
  z.object({
    ...InteractionBase,
    type: z.literal(5),
    data: z.object({
      custom_id: z.string(),
      components: z.array(
        z.object({
          type: z.number(),
          components: z
            .array(
              z.object({
                type: z.number(),
                custom_id: z.string().optional(),
                value: z.string().max(4000).optional(),
              }),
            )
            .default([]),
        }),
      ),
    }),
  }),
]);
export type DiscordInteraction = z.infer<typeof DiscordInteractionSchema>;

/** Where a message was posted, as the adapter knows it from its channel cache. */
export type DiscordPlace =
  | { kind: 'dm' }
  | { kind: 'text'; name?: string }
  | { kind: 'thread'; parentId: string; parentName?: string };

export interface DiscordSelf {
  botUserId: string;
  /** Other bots whose messages are handled; every other bot is ignored, which stops bot loops. */
  allowedBotIds: ReadonlySet<string>;
}

export interface IncomingDiscordMessage {
  eventId: string;
  author: DiscordAuthor;
  member?: DiscordMember;
  conversation: Conversation;
  text: string;
  mentioned: boolean;
  direct: boolean;
  /** A mention in a channel: the bot answers in a new public thread from this message, named so. */
  startThread?: { messageId: string; name: string };
}

export type Normalized<T> = { ok: true; value: T } | { ok: false; skip: string };

const PEOPLE_MESSAGE_TYPES = new Set([0, 19]);
/** Discord names a thread with at most 100 characters. */
const THREAD_NAME_CHARS = 100;

export function normalizeDiscordMessage(
  raw: unknown,
  place: DiscordPlace,
  self: DiscordSelf,
): Normalized<IncomingDiscordMessage> {
  const parsed = DiscordMessageSchema.safeParse(raw);
  if (!parsed.success) return skip('a message in an unexpected shape');
  const message = parsed.data;
  if (message.author.id === self.botUserId) return skip("the bot's own message");
  if (message.author.bot && !self.allowedBotIds.has(message.author.id))
    return skip('a message from another bot');
  if (!PEOPLE_MESSAGE_TYPES.has(message.type)) return skip('a system message');
  const mentioned = message.mentions.some((user) => user.id === self.botUserId);
  const direct = place.kind === 'dm';
  if (place.kind === 'text' && !mentioned) return skip('a channel message without a mention');
  const text = withoutMention(message.content, self.botUserId);
  // Without the MessageContent intent Discord blanks every message that does not mention the bot: there is
  // nothing to answer, and an empty task would only fail in the thread.
  if (text === '' && !mentioned && !direct) return skip('a message without content (no mention, no intent)');
  const author = authorOf(message.author);
  const member = message.member ? memberOf(message.member) : undefined;
  const workspace = message.guild_id ? { workspaceId: message.guild_id } : {};
  const base = {
    eventId: message.id,
    author,
    ...(member ? { member } : {}),
    text,
    mentioned,
    direct,
  };
  switch (place.kind) {
    case 'dm':
      return ok({ ...base, conversation: { platform: 'discord', channelId: message.channel_id } });
    case 'thread':
      return ok({
        ...base,
        conversation: {
          platform: 'discord',
          channelId: place.parentId,
          threadId: message.channel_id,
          ...(place.parentName ? { channelName: place.parentName } : {}),
          ...workspace,
        },
      });
    case 'text':
      return ok({
        ...base,
        conversation: {
          platform: 'discord',
          channelId: message.channel_id,
          ...(place.name ? { channelName: place.name } : {}),
          ...workspace,
        },
        startThread: { messageId: message.id, name: threadName(text) },
      });
  }
}

export interface IncomingDiscordInteraction {
  eventId: string;
  author: DiscordAuthor;
  member?: DiscordMember;
  channelId: string;
  /** The server the interaction came from; absent in a DM. */
  guildId?: string;
  input:
    | { kind: 'command'; text: string }
    | { kind: 'button'; intent: ButtonIntent; tool?: string }
    /** The deny modal submitted: the reason is trimmed, and absent when left empty. */
    | { kind: 'deny_reason'; approvalId: string; reason?: string };
}

/** The `/ops` command's text (its `task` option), a button's decoded intent, or a submitted deny modal. */
export function normalizeDiscordInteraction(raw: unknown): Normalized<IncomingDiscordInteraction> {
  const parsed = DiscordInteractionSchema.safeParse(raw);
  if (!parsed.success) return skip('an interaction in an unexpected shape');
  const interaction = parsed.data;
  const user = interaction.member?.user ?? interaction.user;
  if (!user || !interaction.channel_id) return skip('an interaction without a user or a channel');
  const base = {
    eventId: interaction.id,
    author: authorOf(user),
    ...(interaction.member ? { member: memberOf(interaction.member) } : {}),
    channelId: interaction.channel_id,
    ...(interaction.guild_id ? { guildId: interaction.guild_id } : {}),
  };
  if (interaction.type === 2) {
    const task = interaction.data.options.find((option) => option.name === 'task');
    const text = typeof task?.value === 'string' ? task.value : '';
    return ok({ ...base, input: { kind: 'command', text } });
  }
  if (interaction.type === 5) {
    const approvalId = deniedApprovalId(interaction.data.custom_id);
    if (!approvalId) return skip('a modal that is not one of opsbot’s');
    const input = interaction.data.components
      .flatMap((row) => row.components)
      .find((component) => component.custom_id === REASON_INPUT_ID);
    const reason = reasonOf(input?.value);
    return ok({ ...base, input: { kind: 'deny_reason', approvalId, ...(reason ? { reason } : {}) } });
  }
  const intent = decodeButton(interaction.data.custom_id);
  if (!intent) return skip('a button that is not one of opsbot’s');
  const tool = intent.action === 'deny' ? toolOnCard(interaction.message?.embeds ?? []) : undefined;
  return ok({ ...base, input: { kind: 'button', intent, ...(tool ? { tool } : {}) } });
}

function authorOf(author: z.infer<typeof AuthorSchema>): DiscordAuthor {
  return { id: author.id, username: author.username, globalName: author.global_name ?? null };
}

function memberOf(member: z.infer<typeof MemberSchema>): DiscordMember {
  return { nick: member.nick ?? null, roleIds: member.roles };
}

/** The text without the bot's own mention (`<@id>`, or `<@!id>` for a nickname mention). */
function withoutMention(content: string, botUserId: string): string {
  return content
    .replace(new RegExp(`<@!?${botUserId}>`, 'g'), '')
    .replace(/\s+/g, ' ')
    .trim();
}

function threadName(text: string): string {
  return clip(text.replace(/\s+/g, ' ').trim() || 'opsbot', THREAD_NAME_CHARS);
}

function ok<T>(value: T): Normalized<T> {
  return { ok: true, value };
}

function skip(reason: string): { ok: false; skip: string } {
  return { ok: false, skip: reason };
}
