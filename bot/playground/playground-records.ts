// What the playground stores: channels and messages, checked when read, and the changes streamed to browsers.
import { z } from 'zod';
import type { OutboundMessage } from '../../agent/chat-port.js';

const AuthorSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('bot'), name: z.string() }),
  z.object({
    kind: z.literal('user'),
    userId: z.string(),
    displayName: z.string(),
    roles: z.array(z.string()),
  }),
]);
export type MessageAuthor = z.infer<typeof AuthorSchema>;

/** What a person typed, or what the bot sent through the ChatPort. */
export type MessageContent = OutboundMessage | { kind: 'user_text'; text: string };

const MessageSchema = z.object({
  id: z.string(),
  channelId: z.string(),
  threadId: z.string().optional(),
  author: AuthorSchema,
  // The kernel's OutboundMessage has no schema of its own; the page renders unknown kinds as plain text.
  content: z.looseObject({ kind: z.string() }).transform((value) => value as MessageContent),
  createdAt: z.number(),
  updatedAt: z.number(),
  /** Grows with every change; SSE event ids, so a reconnect can ask for what changed since. */
  seq: z.number(),
});
export type PlaygroundMessage = z.infer<typeof MessageSchema>;

/**
 * Before the kernel sent answers with the question, the playground marked answered questions on the record
 * itself; such stored messages read as the kernel's answered question now.
 */
export const StoredMessageSchema = z.preprocess((stored) => {
  if (typeof stored !== 'object' || stored === null || !('answered' in stored)) return stored;
  const { answered, ...message } = stored as Record<string, unknown> & { content?: { kind?: unknown } };
  const legacy = z.object({ by: z.string(), value: z.string(), at: z.number() }).safeParse(answered);
  const content = message.content;
  if (!legacy.success || content?.kind !== 'question' || 'answered' in content) return message;
  const { by, value, at } = legacy.data;
  return { ...message, content: { ...content, answered: { by, answer: value, at } } };
}, MessageSchema);

export const ChannelSchema = z.object({
  id: z.string(),
  name: z.string(),
  createdAt: z.number(),
  createdBy: z.string().optional(),
  seq: z.number(),
});
export type PlaygroundChannel = z.infer<typeof ChannelSchema>;

export type PlaygroundChange =
  | { type: 'message'; message: PlaygroundMessage }
  | { type: 'channel'; channel: PlaygroundChannel };

export interface NewMessage {
  channelId: string;
  threadId?: string | undefined;
  author: MessageAuthor;
  content: MessageContent;
}
