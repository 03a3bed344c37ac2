// Button ids that carry opaque ids only: `approve:<approvalId>`, `deny:<approvalId>`, `answer:<runId>:<index>`,
// approving for a while `grant:<approvalId>:<1h>` and `grant:<approvalId>:<1h>:<pattern>`, on patrol reports `pack:<reportId>`, `psnooze:<reportId>:<1h|4h|1d>`, `prun:<reportId>`, and on alert groups `aack:<groupId>`, `ainv:<groupId>`, `asil:<groupId>:<1h|4h>`, and `cancel:<runId>` on a run's cards.
import { z } from 'zod';

/** Discord's custom_id limit, the tightest of the platforms; Slack's button value allows 2,000. */
export const MAX_BUTTON_ID_CHARS = 100;
/** Choices a question may offer by button; more than any platform shows at once. */
export const MAX_CHOICE_INDEX = 999;

const OpaqueId = z.string().regex(/^[A-Za-z0-9_-]{1,90}$/, 'an id of letters, digits, _ or -');
/** Canonical decimal: no sign, no exponent, no leading zero, so one index has exactly one encoding. */
const ChoiceIndex = z
  .string()
  .regex(/^(0|[1-9]\d{0,2})$/, 'a choice number')
  .transform(Number)
  .pipe(z.number().int().min(0).max(MAX_CHOICE_INDEX));

/** How long a report's Snooze buttons silence its checks. */
export const SNOOZE_CHOICES = ['1h', '4h', '1d'] as const;
const SnoozeChoice = z.enum(SNOOZE_CHOICES);
/** How long an alert group's Silence buttons silence it in Alertmanager. */
export const SILENCE_CHOICES = ['1h', '4h'] as const;
const SilenceChoice = z.enum(SILENCE_CHOICES);
/** A grant length as settings write it (15m, 1h, 4h); the kernel checks it against `permissions.grant_durations`. */
const GrantLength = z.string().regex(/^[1-9]\d{0,3}(s|m|h|d)$/, 'a grant length such as 15m or 1h');
const PatternName = z.string().regex(/^[a-z0-9][a-z0-9_-]{0,23}$/, 'a grant pattern name');
const GrantChoice = z.object({ for: GrantLength, pattern: PatternName.optional() });

export const ButtonIntentSchema = z.discriminatedUnion('action', [
  z.object({ action: z.literal('approve'), approvalId: OpaqueId, grant: GrantChoice.optional() }),
  z.object({ action: z.literal('deny'), approvalId: OpaqueId }),
  z.object({
    action: z.literal('answer'),
    runId: OpaqueId,
    choice: z.number().int().min(0).max(MAX_CHOICE_INDEX),
  }),
  z.object({ action: z.enum(['patrol_ack', 'patrol_run']), reportId: OpaqueId }),
  z.object({ action: z.literal('patrol_snooze'), reportId: OpaqueId, snooze: SnoozeChoice }),
  z.object({ action: z.enum(['alert_ack', 'alert_investigate']), groupId: OpaqueId }),
  z.object({ action: z.literal('alert_silence'), groupId: OpaqueId, silence: SilenceChoice }),
  /** Cancel on a run's working status, question or approval card; the kernel decides who may. */
  z.object({ action: z.literal('cancel'), runId: OpaqueId }),
]);
/** What a click asks for. The click is checked against the stored approval or run, never against the button. */
export type ButtonIntent = z.infer<typeof ButtonIntentSchema>;

/** The id to put on a button; throws for ids that could not round-trip, which is a bug in the caller. */
export function encodeButton(intent: ButtonIntent): string {
  const checked = ButtonIntentSchema.parse(intent);
  const encoded = encodedText(checked);
  if (encoded.length > MAX_BUTTON_ID_CHARS) {
    throw new Error(`A button id must be at most ${MAX_BUTTON_ID_CHARS} characters: ${encoded}`);
  }
  return encoded;
}

function encodedText(intent: ButtonIntent): string {
  switch (intent.action) {
    case 'answer':
      return `answer:${intent.runId}:${intent.choice}`;
    case 'approve':
      if (intent.grant) {
        const pattern = intent.grant.pattern ? `:${intent.grant.pattern}` : '';
        return `grant:${intent.approvalId}:${intent.grant.for}${pattern}`;
      }
      return `approve:${intent.approvalId}`;
    case 'deny':
      return `deny:${intent.approvalId}`;
    case 'patrol_ack':
      return `pack:${intent.reportId}`;
    case 'patrol_run':
      return `prun:${intent.reportId}`;
    case 'patrol_snooze':
      return `psnooze:${intent.reportId}:${intent.snooze}`;
    case 'alert_ack':
      return `aack:${intent.groupId}`;
    case 'alert_investigate':
      return `ainv:${intent.groupId}`;
    case 'alert_silence':
      return `asil:${intent.groupId}:${intent.silence}`;
    case 'cancel':
      return `cancel:${intent.runId}`;
  }
}

const EncodedButton = z
  .string()
  .max(MAX_BUTTON_ID_CHARS)
  .transform((value) => value.split(':'))
  .pipe(
    z.union([
      z.tuple([z.enum(['approve', 'deny']), OpaqueId]).transform(([action, approvalId]) => ({
        action,
        approvalId,
      })),
      z.tuple([z.literal('grant'), OpaqueId, GrantLength]).transform(([, approvalId, length]) => ({
        action: 'approve' as const,
        approvalId,
        grant: { for: length },
      })),
      z
        .tuple([z.literal('grant'), OpaqueId, GrantLength, PatternName])
        .transform(([, approvalId, length, pattern]) => ({
          action: 'approve' as const,
          approvalId,
          grant: { for: length, pattern },
        })),
      z.tuple([z.literal('answer'), OpaqueId, ChoiceIndex]).transform(([action, runId, choice]) => ({
        action,
        runId,
        choice,
      })),
      z.tuple([z.literal('pack'), OpaqueId]).transform(([, reportId]) => ({
        action: 'patrol_ack' as const,
        reportId,
      })),
      z.tuple([z.literal('prun'), OpaqueId]).transform(([, reportId]) => ({
        action: 'patrol_run' as const,
        reportId,
      })),
      z.tuple([z.literal('psnooze'), OpaqueId, SnoozeChoice]).transform(([, reportId, snooze]) => ({
        action: 'patrol_snooze' as const,
        reportId,
        snooze,
      })),
      z.tuple([z.literal('aack'), OpaqueId]).transform(([, groupId]) => ({
        action: 'alert_ack' as const,
        groupId,
      })),
      z.tuple([z.literal('ainv'), OpaqueId]).transform(([, groupId]) => ({
        action: 'alert_investigate' as const,
        groupId,
      })),
      z.tuple([z.literal('asil'), OpaqueId, SilenceChoice]).transform(([, groupId, silence]) => ({
        action: 'alert_silence' as const,
        groupId,
        silence,
      })),
      z.tuple([z.literal('cancel'), OpaqueId]).transform(([, runId]) => ({
        action: 'cancel' as const,
        runId,
      })),
    ]),
  );

/** The intent of a button we made, or undefined for anything else: a forged, stale or garbled value. */
export function decodeButton(value: unknown): ButtonIntent | undefined {
  const parsed = EncodedButton.safeParse(value);
  return parsed.success ? parsed.data : undefined;
}
