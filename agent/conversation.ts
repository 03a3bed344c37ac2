// Where a task happens: a platform channel and thread. One thread is one conversation, and its runs share memory.
import { z } from 'zod';
import { PlatformSchema } from './principal.js';

export const ConversationSchema = z.object({
  platform: PlatformSchema,
  channelId: z.string().min(1),
  /** The thread's root message id; absent for a task that has no thread yet (a CLI run). */
  threadId: z.string().min(1).optional(),
  /** The channel's human name without '#', when the platform gives one, for channel rules such as `#ops`. */
  channelName: z.string().optional(),
  /**
   * The workspace the channel belongs to: Slack's team id, Discord's guild id. Absent in a Discord DM, on the CLI,
   * and in runs stored before it was recorded (those are still read: it is optional).
   */
  workspaceId: z.string().min(1).optional(),
});
export type Conversation = z.infer<typeof ConversationSchema>;

export function conversationKey(conversation: Conversation): string {
  return `${conversation.platform}:${conversation.channelId}:${conversation.threadId ?? '-'}`;
}

/**
 * Whether any chat adapter shows this conversation. A patrol's own conversation is shown by none: its reports are
 * posted by the patrol service, so the run's status and result messages are not posted at all.
 */
export function shownInChat(conversation: Conversation): boolean {
  return conversation.platform !== 'patrol';
}
