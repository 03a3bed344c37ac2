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

/** A change still to be told in the thread: which alerts joined and which resolved, and how many fire after it. */
export const PendingReplySchema = z.object({
  kind: z.enum(['changed', 'resolved']),
  added: z.array(ShownAlertSchema),
  resolved: z.array(ShownAlertSchema),
  firingCount: z.number().int().nonnegative(),
  resolvedAt: z.number().optional(),
  /** How opsbot learned of the change, when no notification told it (Alertmanager's own list of alerts). */
  note: z.string().optional(),
});
export type PendingReply = z.infer<typeof PendingReplySchema>;

/**
 * What the thread does not show yet. It is saved with the change, before anything is posted, so a post that
 * failed (the chat platform down, a rate limit) or a process that died first is made later, never lost.
 */
export const PendingDeliverySchema = z.object({
  /** `post`: the root is not posted yet (its ref has no message id). `edit`: it does not show the record yet. */
  root: z.enum(['post', 'edit']).optional(),
  /** The replies to post in the thread, oldest first. */
  replies: z.array(PendingReplySchema).default([]),
  /** The new group's investigation (or route checks) is still to start; it needs the root's thread. */
  start: z.boolean().optional(),
  /** Failed tries so far, when the next is due, and why the last one failed. */
  attempts: z.number().int().nonnegative().default(0),
  retryAt: z.number().optional(),
  lastError: z.string().optional(),
});
export type PendingDelivery = z.infer<typeof PendingDeliverySchema>;

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
  /** Counts the record's changes, so a post made from an older one is known to be out of date. */
  revision: z.number().int().nonnegative().default(0),
  /** Absent when the thread shows the record as it stands. */
  pending: PendingDeliverySchema.optional(),
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

/**
 * The record after a change, with what the thread must still show: a new root to post, or the root to edit and a
 * reply. `channel` is where a new group's root goes.
 */
export function recordAfter(
  record: AlertGroupRecord | undefined,
  change: Exclude<GroupChange, { kind: 'none' }>,
  context: {
    groupId: string;
    payload: WebhookPayload;
    channel?: AlertGroupRoot['conversation'];
    /** Said in the reply: how the change was learned, when no notification told it. */
    note?: string;
  },
): AlertGroupRecord {
  const { payload } = context;
  if (change.kind === 'opened') {
    if (!context.channel) throw new Error('An opened alert group needs the channel of its root');
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
      root: { conversation: { ...context.channel }, messageId: '' },
      investigation: {},
      revision: 0,
      pending: { root: 'post', replies: [], start: true, attempts: 0 },
    };
  }
  if (!record) throw new Error(`A ${change.kind} alert group needs its stored record`);
  const said = context.note ? { note: context.note } : {};
  const reply: PendingReply =
    change.kind === 'changed'
      ? {
          kind: 'changed',
          added: change.added,
          resolved: change.resolved,
          firingCount: change.alerts.length,
          ...said,
        }
      : {
          kind: 'resolved',
          added: [],
          resolved: change.resolved,
          firingCount: 0,
          resolvedAt: change.resolvedAt,
          ...said,
        };
  const pending = withChange(record.pending, reply, record.root.messageId !== '');
  if (change.kind === 'changed') return { ...record, alerts: change.alerts, pending };
  return { ...record, status: 'resolved', resolvedAt: change.resolvedAt, pending };
}

/**
 * A root not posted yet is posted as the record stands, so a reply about a change it never showed is not queued.
 * A group that resolves before its investigation started gets none.
 */
function withChange(
  pending: PendingDelivery | undefined,
  reply: PendingReply,
  rootPosted: boolean,
): PendingDelivery {
  // A root given up on after a day of failures is posted again with the next change.
  const base: PendingDelivery = pending ?? {
    replies: [],
    attempts: 0,
    ...(rootPosted ? {} : { root: 'post' }),
  };
  if (base.root === 'post') {
    return reply.kind === 'resolved' ? { ...base, start: false } : base;
  }
  return {
    ...base,
    root: 'edit',
    replies: [...base.replies, reply],
    ...(reply.kind === 'resolved' ? { start: false } : {}),
  };
}

/** The record with its root to edit, for a change made outside a notification whose edit did not go through. */
export function withRootEdit(record: AlertGroupRecord): AlertGroupRecord {
  const pending = record.pending ?? { replies: [], attempts: 0 };
  return { ...record, pending: { ...pending, root: pending.root ?? 'edit' } };
}

/**
 * What Alertmanager's list of the alerts it holds says about a group: the shown alerts it no longer has have
 * resolved, as a notification would have said had they not been silenced or inhibited. Undefined when it has all
 * of them.
 */
export function heldPayload(record: AlertGroupRecord, held: ReadonlySet<string>): WebhookPayload | undefined {
  if (record.alerts.every((alert) => held.has(alert.fingerprint))) return undefined;
  const alerts = record.alerts.map((alert) => ({
    ...alert,
    status: held.has(alert.fingerprint) ? ('firing' as const) : ('resolved' as const),
    endsAt: 0,
  }));
  return {
    version: '4',
    receiver: record.receiver,
    status: alerts.some((alert) => alert.status === 'firing') ? 'firing' : 'resolved',
    alerts,
    groupLabels: record.groupLabels,
    commonLabels: {},
    commonAnnotations: {},
    externalURL: record.externalURL,
    groupKey: record.groupKey,
    truncatedAlerts: 0,
  };
}

/** Whether anything is left for the thread to show. */
export function hasPending(pending: PendingDelivery | undefined): pending is PendingDelivery {
  return (
    pending !== undefined &&
    (pending.root !== undefined || pending.replies.length > 0 || pending.start === true)
  );
}

/** After a post that worked: nothing left means no pending at all, and the failures so far are forgotten. */
export function settled(record: AlertGroupRecord): AlertGroupRecord {
  const { pending, ...rest } = record;
  if (!hasPending(pending)) return rest;
  const { retryAt: _retryAt, lastError: _lastError, ...left } = pending;
  return { ...rest, pending: { ...left, attempts: 0 } };
}

/** A failed post's retry: 5 s, doubling to 5 min, given up after about a day of failing. */
export const RETRY_FIRST_MS = 5_000;
export const RETRY_MAX_MS = 5 * 60_000;
export const MAX_POST_ATTEMPTS = 300;

export function retryAfterFailure(
  record: AlertGroupRecord,
  error: string,
  now: number,
): { record: AlertGroupRecord; gaveUp: boolean } {
  const pending = record.pending ?? { replies: [], attempts: 0 };
  const attempts = pending.attempts + 1;
  if (attempts >= MAX_POST_ATTEMPTS) {
    const { pending: _dropped, ...rest } = record;
    return { record: rest, gaveUp: true };
  }
  const wait = Math.min(RETRY_FIRST_MS * 2 ** Math.min(attempts - 1, 16), RETRY_MAX_MS);
  return {
    record: {
      ...record,
      pending: { ...pending, attempts, retryAt: now + wait, lastError: error.slice(0, 300) },
    },
    gaveUp: false,
  };
}

function compare(a: ShownAlert, b: ShownAlert): number {
  return a.fingerprint < b.fingerprint ? -1 : a.fingerprint > b.fingerprint ? 1 : 0;
}

/** The record once a Silence button's run made a silence: the newest silence replaces any earlier one. */
export function recordSilenced(record: AlertGroupRecord, silenced: AlertGroupSilence): AlertGroupRecord {
  return { ...record, silenced };
}
