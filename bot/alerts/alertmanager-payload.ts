// Alertmanager's webhook payload, version 4, as zod: what `POST /alerts/alertmanager` accepts, and nothing else.
import { z } from 'zod';

/**
 * A label set a chat message can carry: Alertmanager puts no bound on labels, so a group whose labels would not fit
 * a root message (or a Slack section) is refused with a reason instead of being posted cut.
 */
export const MAX_LABELS = 64;
export const MAX_LABEL_SET_CHARS = 4_000;
export const MAX_ANNOTATION_CHARS = 8_000;
/** More alerts than this in one notification is no group a person reads; Alertmanager's `max_alerts` caps it. */
export const MAX_ALERTS = 1_000;

const LabelSet = z.record(z.string().min(1).max(256), z.string().max(2_048)).superRefine((labels, ctx) => {
  const names = Object.keys(labels);
  const chars = names.reduce((sum, name) => sum + name.length + labels[name]!.length, 0);
  if (names.length > MAX_LABELS || chars > MAX_LABEL_SET_CHARS) {
    ctx.addIssue({
      code: 'custom',
      message: `a label set too large to post (${names.length} labels, ${chars} characters; at most ${MAX_LABELS} and ${MAX_LABEL_SET_CHARS})`,
    });
  }
});

const Annotations = z.record(z.string().min(1).max(256), z.string().max(MAX_ANNOTATION_CHARS));

/** RFC 3339 as Alertmanager writes it; a firing alert's `endsAt` is the zero time `0001-01-01T00:00:00Z`. */
const Timestamp = z
  .string()
  .refine((text) => !Number.isNaN(Date.parse(text)), 'an RFC 3339 time')
  .transform((text) => Date.parse(text));

export const WebhookAlertSchema = z.object({
  status: z.enum(['firing', 'resolved']),
  labels: LabelSet,
  annotations: Annotations.default({}),
  startsAt: Timestamp,
  endsAt: Timestamp,
  generatorURL: z.string().max(8_192).default(''),
  fingerprint: z.string().regex(/^[0-9a-f]{1,64}$/, 'a hexadecimal fingerprint'),
});
export type WebhookAlert = z.output<typeof WebhookAlertSchema>;

export const WebhookPayloadSchema = z.object({
  version: z.literal('4', { error: 'version "4" (Alertmanager 0.x webhook payload)' }),
  receiver: z.string().min(1).max(256),
  status: z.enum(['firing', 'resolved']),
  alerts: z.array(WebhookAlertSchema).min(1, 'at least one alert').max(MAX_ALERTS),
  groupLabels: LabelSet,
  commonLabels: LabelSet,
  commonAnnotations: Annotations.default({}),
  externalURL: z.string().max(2_048).default(''),
  groupKey: z.string().min(1).max(8_192),
  truncatedAlerts: z.number().int().min(0).default(0),
});
export type WebhookPayload = z.output<typeof WebhookPayloadSchema>;

/** A one-line reason for a payload zod refused: the first problem, with where it is. */
export function payloadProblem(error: z.ZodError): string {
  const issue = error.issues[0];
  if (!issue) return 'the payload is not valid';
  const path = issue.path.map(String).join('.');
  const version = issue.path.length === 1 && issue.path[0] === 'version';
  if (version) return `expected a webhook payload of version "4"; this one is of another version`;
  const more = error.issues.length > 1 ? ` (and ${error.issues.length - 1} more problems)` : '';
  return `${path || '(body)'}: ${issue.message}${more}`;
}

/** The PromQL expression of a Prometheus alert: its `generatorURL`'s `g0.expr`, when there is one. */
export function promqlOf(generatorURL: string): string | undefined {
  if (!URL.canParse(generatorURL)) return undefined;
  const expression = new URL(generatorURL).searchParams.get('g0.expr');
  return expression?.trim() ? expression : undefined;
}
