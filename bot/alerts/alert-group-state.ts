// One alert group's state (its `groupKey`) and its transitions, as pure functions: what a notification changes,
// decided by the set of firing fingerprints only, never by any text.
import { z } from 'zod';
import type { WebhookPayload } from './alertmanager-payload.js';

const LabelsSchema = z.record(z.string(), z.string());

export const ShownAlertSchema = z.object({
  fingerprint: z.string(),
  labels: LabelsSchema,
  annotations: LabelsSchema,
  startsAt: z.number(),
  generatorURL: z.string(),
});
export type ShownAlert = z.infer<typeof ShownAlertSchema>;

const RefSchema = z.object({
  conversation: z.object({
    platform: z.enum(['slack', 'discord', 'playground']),
    channelId: z.string(),
    threadId: z.string().optional(),
  }),
  messageId: z.string(),
});

/** Stored per group; version 1. A group that fires again after it resolved starts a new thread (a new episode). */
export const AlertGroupRecordSchema = z.object({
  version: z.literal(1),
  groupId: z.string(),
  groupKey: z.string(),
  receiver: z.string(),
  groupLabels: LabelsSchema,
  status: z.enum(['firing', 'resolved']),
  /** The alerts the root shows: firing now, or those that were firing when the group resolved. */
  alerts: z.array(ShownAlertSchema),
  /** When the group's first alert started firing (its earliest `startsAt`). */
  openedAt: z.number(),
  resolvedAt: z.number().optional(),
  externalURL: z.string(),
  root: RefSchema,
  /** How the group was investigated, or why not, for the root's note and its Investigate button. */
  investigation: z.object({ runId: z.string().optional(), note: z.string().optional() }).default({}),
  acked: z.object({ by: z.string(), at: z.number() }).optional(),
  /**
   * The latest silence a Silence button made (its run finished ok): shown on the root, in place of the Silence
   * buttons, until it ends.
   */
  silenced: z
    .object({
      by: z.string(),
      until: z.number(),
      /** The button's length, such as 1h. */
      duration: z.string(),
      /** Alertmanager's id of the silence, when the tool's result gave it. */
      silenceId: z.string().optional(),
    })
    .optional(),
});
export type AlertGroupRecord = z.infer<typeof AlertGroupRecordSchema>;
export type AlertGroupRoot = AlertGroupRecord['root'];
export type AlertGroupSilence = NonNullable<AlertGroupRecord['silenced']>;

/** What a notification does to its group. */
export type GroupChange =
  /** The same firing set as shown (a `repeat_interval` resend, an HA twin), or nothing firing for no open group. */
  | { kind: 'none'; reason: 'same_firing_set' | 'nothing_open' }
  /** The first notification with firing alerts (or the first after the group resolved): a new root. */
  | { kind: 'opened'; alerts: ShownAlert[]; openedAt: number }
  /** Some alerts joined, some resolved, some still fire: the root edited, and a reply. */
  | { kind: 'changed'; alerts: ShownAlert[]; added: ShownAlert[]; resolved: ShownAlert[] }
  /** Nothing fires any more: the root turns RESOLVED, and a reply. */
  | { kind: 'resolved'; resolved: ShownAlert[]; resolvedAt: number };

export function firingAlerts(payload: WebhookPayload): ShownAlert[] {
  const byFingerprint = new Map<string, ShownAlert>();
  for (const alert of payload.alerts) {
    if (alert.status !== 'firing') continue;
    byFingerprint.set(alert.fingerprint, {
      fingerprint: alert.fingerprint,
      labels: alert.labels,
      annotations: alert.annotations,
      startsAt: alert.startsAt,
      generatorURL: alert.generatorURL,
    });
  }
  return [...byFingerprint.values()].sort((a, b) => a.startsAt - b.startsAt || compare(a, b));
}

export function groupChange(
  record: AlertGroupRecord | undefined,
  payload: WebhookPayload,
  now: number,
): GroupChange {
  const firing = firingAlerts(payload);
  if (!record || record.status === 'resolved') {
    if (firing.length === 0) return { kind: 'none', reason: 'nothing_open' };
    return { kind: 'opened', alerts: firing, openedAt: Math.min(now, ...firing.map((a) => a.startsAt)) };
  }
  const shown = new Set(record.alerts.map((alert) => alert.fingerprint));
  if (payload.truncatedAlerts > 0) {
    // Alertmanager cut the list (the receiver's max_alerts): an alert shown but missing from it may still fire, so
    // only one the notification lists as resolved counts as resolved.
    const resolvedNow = new Set(
      payload.alerts.filter((a) => a.status === 'resolved').map((a) => a.fingerprint),
    );
    const listed = new Set(firing.map((alert) => alert.fingerprint));
    for (const alert of record.alerts) {
      if (!listed.has(alert.fingerprint) && !resolvedNow.has(alert.fingerprint)) firing.push(alert);
    }
    firing.sort((a, b) => a.startsAt - b.startsAt || compare(a, b));
  }
  const current = new Set(firing.map((alert) => alert.fingerprint));
  if (firing.length === 0) return { kind: 'resolved', resolved: record.alerts, resolvedAt: now };
  if (shown.size === current.size && [...shown].every((fingerprint) => current.has(fingerprint))) {
    return { kind: 'none', reason: 'same_firing_set' };
  }
  return {
    kind: 'changed',
    alerts: firing,
    added: firing.filter((alert) => !shown.has(alert.fingerprint)),
    resolved: record.alerts.filter((alert) => !current.has(alert.fingerprint)),
  };
}

/** The record after a change whose posts were made; `root` is the new root's ref for an opened group. */
export function recordAfter(
  record: AlertGroupRecord | undefined,
  change: Exclude<GroupChange, { kind: 'none' }>,
  context: { groupId: string; payload: WebhookPayload; root?: AlertGroupRoot },
): AlertGroupRecord {
  const { payload } = context;
  if (change.kind === 'opened') {
    if (!context.root) throw new Error('An opened alert group needs its root message');
    return {
      version: 1,
      groupId: context.groupId,
      groupKey: payload.groupKey,
      receiver: payload.receiver,
      groupLabels: payload.groupLabels,
      status: 'firing',
      alerts: change.alerts,
      openedAt: change.openedAt,
      externalURL: payload.externalURL,
      root: context.root,
      investigation: {},
    };
  }
  if (!record) throw new Error(`A ${change.kind} alert group needs its stored record`);
  if (change.kind === 'changed') return { ...record, alerts: change.alerts };
  return { ...record, status: 'resolved', resolvedAt: change.resolvedAt };
}

function compare(a: ShownAlert, b: ShownAlert): number {
  return a.fingerprint < b.fingerprint ? -1 : a.fingerprint > b.fingerprint ? 1 : 0;
}

/** The record once a Silence button's run made a silence: the newest silence replaces any earlier one. */
export function recordSilenced(record: AlertGroupRecord, silenced: AlertGroupSilence): AlertGroupRecord {
  return { ...record, silenced };
}
