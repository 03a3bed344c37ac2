// An alert scenario's `alert:` block: the Alertmanager webhook notification (version 4) the receiver gets, in
// place of a task a person types. Each alert's `startsAt` is left out and filled from `firing_for` at run time.
import { z } from 'zod';
import { DurationSchema } from '../agent/policy/duration.js';
import { type WebhookPayload, WebhookPayloadSchema } from '../bot/alerts/alertmanager-payload.js';

/** What Alertmanager sends as a firing alert's `endsAt`: the zero time. */
const ZERO_TIME = '0001-01-01T00:00:00Z';

export const AlertBlockSchema = z
  .object({
    /** How long each alert has been firing when the notification comes: its `startsAt` is now minus this. */
    firing_for: DurationSchema.default(10 * 60_000),
    /**
     * The webhook payload as Alertmanager posts it (`version: "4"`, `receiver`, `status`, `alerts[]`,
     * `groupLabels`, `commonLabels`, `groupKey`, ...), without the alerts' `startsAt` and `endsAt`.
     */
    payload: z.record(z.string(), z.unknown()),
  })
  .strict()
  .superRefine((block, ctx) => {
    const parsed = WebhookPayloadSchema.safeParse(withTimes(block.payload, Date.UTC(2026, 0, 1)));
    for (const issue of parsed.error?.issues ?? [])
      ctx.addIssue({ code: 'custom', path: ['payload', ...issue.path.map(String)], message: issue.message });
  });
export type AlertBlock = z.output<typeof AlertBlockSchema>;

function withTimes(payload: Record<string, unknown>, startsAt: number): Record<string, unknown> {
  const alerts = Array.isArray(payload.alerts)
    ? payload.alerts
    : payload.alerts === undefined
      ? []
      : undefined;
  if (!alerts) return payload;
  return {
    ...payload,
    alerts: alerts.map((alert) =>
      alert !== null && typeof alert === 'object'
        ? { startsAt: new Date(startsAt).toISOString(), endsAt: ZERO_TIME, ...alert }
        : alert,
    ),
  };
}

/** The payload as the receiver reads it, its alerts firing for `firing_for` before `now`. */
export function alertPayload(block: AlertBlock, now: number): WebhookPayload {
  return WebhookPayloadSchema.parse(withTimes(block.payload, now - block.firing_for));
}

/** An alert scenario is started by its notification: no task, no patrol. */
export function alertIssues(scenario: {
  task?: string | undefined;
  patrol?: unknown;
}): { path: string[]; message: string }[] {
  const issues: { path: string[]; message: string }[] = [];
  if (scenario.task !== undefined)
    issues.push({ path: ['task'], message: 'give a task or an alert:, not both (the alert makes the task)' });
  if (scenario.patrol !== undefined)
    issues.push({ path: ['patrol'], message: 'give a patrol or an alert:, not both' });
  return issues;
}
