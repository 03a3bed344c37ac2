// The parts of Slack's event, slash command and block action payloads we read, validated before use.
import { z } from 'zod';

const id = z.string().min(1);

export const EventEnvelopeSchema = z.object({
  event_id: id,
  team_id: z.string().optional(),
  event: z.unknown(),
});

export const MessageEventSchema = z.object({
  type: z.enum(['app_mention', 'message']),
  subtype: z.string().optional(),
  user: z.string().optional(),
  bot_id: z.string().optional(),
  text: z.string().default(''),
  ts: id,
  thread_ts: z.string().optional(),
  channel: id,
  channel_type: z.string().optional(),
});
export type MessageEvent = z.infer<typeof MessageEventSchema>;

export const SlashCommandSchema = z.object({
  command: z.string(),
  text: z.string().default(''),
  channel_id: id,
  channel_name: z.string().optional(),
  team_id: z.string().optional(),
  user_id: id,
  trigger_id: id,
  response_url: z.string().optional(),
});
export type SlashCommand = z.infer<typeof SlashCommandSchema>;

export const BlockActionsSchema = z.object({
  type: z.literal('block_actions'),
  user: z.object({ id, team_id: z.string().optional() }),
  /** The workspace the click happened in; null for an org-wide app, which then names the user's team. */
  team: z.object({ id }).nullish(),
  channel: z.object({ id, name: z.string().optional() }).optional(),
  container: z
    .object({
      channel_id: z.string().optional(),
      message_ts: z.string().optional(),
      thread_ts: z.string().optional(),
    })
    .optional(),
  message: z.object({ ts: id, thread_ts: z.string().optional() }).optional(),
  trigger_id: z.string().optional(),
  response_url: z.string().optional(),
  actions: z
    .array(
      z.object({
        action_id: z.string(),
        value: z.string().max(2000).optional(),
        action_ts: z.string().optional(),
      }),
    )
    .min(1),
});
export type BlockActions = z.infer<typeof BlockActionsSchema>;
