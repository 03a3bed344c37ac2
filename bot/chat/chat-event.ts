// The one event shape every platform adapter produces after verifying, acking and normalizing at the edge.
import { z } from 'zod';
import { ConversationSchema } from '../../agent/conversation.js';
import { PrincipalSchema } from '../../agent/principal.js';
import { type ButtonIntent, MAX_CHOICE_INDEX } from './button-codec.js';

const base = {
  /** The platform's id for this delivery, used to drop retries (Slack event_id, Discord interaction id). */
  eventId: z.string().min(1).max(200),
  principal: PrincipalSchema,
  conversation: ConversationSchema,
};

const ActionEventSchema = z
  .object({
    ...base,
    kind: z.literal('action'),
    action: z.enum([
      'approve',
      'deny',
      'answer',
      'patrol_ack',
      'patrol_snooze',
      'patrol_run',
      'alert_ack',
      'alert_investigate',
      'alert_silence',
      'cancel',
    ]),
    /** An approval id; for `answer` and `cancel` the run id; for the patrol actions the report id; for alerts the group id. */
    target: z.string().min(1).max(100),
    /** For `answer` from a button: the index of the chosen choice, which the router turns into its text. */
    choice: z.number().int().min(0).max(MAX_CHOICE_INDEX).optional(),
    /** For `answer` typed by a person: the answer as given; for `patrol_snooze` and `alert_silence` how long (1h, 4h, 1d). */
    value: z.string().max(2000).optional(),
    /** For `approve` for a while: the grant length as settings write it (1h), and a pattern the card offered. */
    grant: z
      .object({
        for: z.string().regex(/^[1-9]\d{0,3}(s|m|h|d)$/),
        pattern: z.string().min(1).max(24).optional(),
      })
      .optional(),
    /**
     * The message the button was on, as the platform says (Slack's message ts, Discord's interaction message, the
     * playground message whose button it is): a card whose approval no longer exists is closed there.
     */
    messageId: z.string().min(1).max(200).optional(),
    /** For `deny`: why, in the denier's words, shown on the card and given to the run. */
    reason: z.string().trim().min(1).max(500).optional(),
  })
  .refine(
    (event) =>
      event.action === 'patrol_snooze' || event.action === 'alert_silence'
        ? event.value !== undefined && event.choice === undefined
        : (event.action === 'answer') === (event.choice !== undefined || event.value !== undefined),
    {
      message:
        'an answer carries a choice number or a value; a snooze or a silence carries its length; the other actions carry neither',
    },
  )
  .refine((event) => event.choice === undefined || event.value === undefined, {
    message: 'an answer carries a choice number or a value, not both',
  })
  .refine((event) => event.reason === undefined || event.action === 'deny', {
    message: 'only a denial carries a reason',
  })
  .refine((event) => event.grant === undefined || event.action === 'approve', {
    message: 'only an approval carries a grant',
  });

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
  ActionEventSchema,
]);
export type ChatEvent = z.infer<typeof ChatEventSchema>;
export type ActionEvent = Extract<ChatEvent, { kind: 'action' }>;

/** What the router wants the adapter to tell only the person who acted (Slack ephemeral, Discord ephemeral). */
export interface RouterReply {
  ephemeral?: string;
}

/** The action fields of a ChatEvent for a decoded button, the same for every platform. */
export function actionFromButton(
  intent: ButtonIntent,
): Pick<ActionEvent, 'action' | 'target'> & Partial<Pick<ActionEvent, 'choice' | 'value' | 'grant'>> {
  switch (intent.action) {
    case 'answer':
      return { action: 'answer', target: intent.runId, choice: intent.choice };
    case 'approve':
      return {
        action: 'approve',
        target: intent.approvalId,
        ...(intent.grant ? { grant: intent.grant } : {}),
      };
    case 'deny':
      return { action: 'deny', target: intent.approvalId };
    case 'patrol_snooze':
      return { action: intent.action, target: intent.reportId, value: intent.snooze };
    case 'patrol_ack':
    case 'patrol_run':
      return { action: intent.action, target: intent.reportId };
    case 'alert_ack':
    case 'alert_investigate':
      return { action: intent.action, target: intent.groupId };
    case 'alert_silence':
      return { action: intent.action, target: intent.groupId, value: intent.silence };
    case 'cancel':
      return { action: 'cancel', target: intent.runId };
  }
}
