// The one event shape every platform adapter produces after verifying, acking and normalizing at the edge.
import { z } from 'zod';
import { ConversationSchema } from '../agent/conversation.js';
import { PrincipalSchema } from '../agent/principal.js';

const base = {
  /** The platform's id for this delivery, used to drop retries (Slack event_id, Discord interaction id). */
  eventId: z.string().min(1),
  principal: PrincipalSchema,
  conversation: ConversationSchema,
};

export const ChatEventSchema = z.discriminatedUnion('kind', [
  /** A message the bot can see: a mention, a direct message, or a reply in a thread. */
  z.object({
    ...base,
    kind: z.literal('message'),
    /** The text with the bot's own mention removed. */
    text: z.string(),
    mentioned: z.boolean(),
    direct: z.boolean(),
  }),
  /** A slash command, e.g. `/ops status`; `text` is what follows the command. */
  z.object({ ...base, kind: z.literal('command'), text: z.string() }),
  /** A button: approve or deny an approval, or pick a choice for a question. */
  z.object({
    ...base,
    kind: z.literal('action'),
    action: z.enum(['approve', 'deny', 'answer']),
    /** An approval id, or for `answer` the run id. */
    target: z.string().min(1).max(100),
    /** The chosen answer, for `answer`. */
    value: z.string().max(2000).optional(),
  }),
]);
export type ChatEvent = z.infer<typeof ChatEventSchema>;

/** What the router wants the adapter to tell only the person who acted (Slack ephemeral, Discord ephemeral). */
export interface RouterReply {
  ephemeral?: string;
  /** True when the event was a retry of one already handled. */
  duplicate?: boolean;
}

/** Button values carry only opaque ids: `approve:<approvalId>`, `deny:<approvalId>`, `answer:<runId>:<index>`. */
export function buttonValue(action: 'approve' | 'deny', approvalId: string): string {
  return `${action}:${approvalId}`;
}
