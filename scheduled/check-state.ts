// The stored state of one patrol check: where its state machine is, and what the channel was last told about it.
import { z } from 'zod';
import type { CheckLevel } from './check-outcome.js';

/**
 * Changelog of the stored check state:
 * - v1: first stored version.
 * Bump the version and add a migration when the shape changes; tests/patrols keeps a v1 fixture that must load.
 */
export const CHECK_STATE_VERSION = 1;

/** A state before another one, in words ("ok", "pending", "warn", "critical", "error", "unknown"), and since when. */
const EarlierSchema = z.strictObject({ word: z.string(), since: z.number() });
export type Earlier = z.infer<typeof EarlierSchema>;

const FiringSchema = z.strictObject({
  status: z.literal('firing'),
  severity: z.enum(['warn', 'critical']),
  since: z.number(),
  previous: EarlierSchema,
});
const ErrorSchema = z.strictObject({
  status: z.literal('error'),
  since: z.number(),
  previous: EarlierSchema,
});

/** A check that failed or errored `raise_after` runs in a row; `previous` is what it was before. */
const ActiveSchema = z.discriminatedUnion('status', [FiringSchema, ErrorSchema]);
export type ActiveStatus = z.infer<typeof ActiveSchema>;

const CheckStatusSchema = z.discriminatedUnion('status', [
  z.strictObject({ status: z.literal('ok'), since: z.number() }),
  /** Failing or erroring for fewer than `raise_after` runs in a row: never reported. */
  z.strictObject({
    status: z.literal('pending'),
    since: z.number(),
    failures: z.number().int().min(1),
    /** When it was last seen passing; absent for a check that failed from its first run. */
    okSince: z.number().optional(),
  }),
  FiringSchema,
  ErrorSchema,
  /** Passing again for fewer than `clear_after` runs in a row; `was` is the failing state it may fall back to. */
  z.strictObject({
    status: z.literal('resolving'),
    since: z.number(),
    passes: z.number().int().min(1),
    was: ActiveSchema,
  }),
]);
export type CheckStatus = z.infer<typeof CheckStatusSchema>;

/** What the channel shows for a check: the level of its open report line, or that it is flapping. */
const ShownLevelSchema = z.enum(['warn', 'critical', 'error', 'flapping']);
export type ShownLevel = z.infer<typeof ShownLevelSchema>;

const ReportedSchema = z.strictObject({
  /** The report whose thread gets this check's replies. */
  reportId: z.string(),
  level: ShownLevelSchema,
  /** When the shown level began. */
  since: z.number(),
  /** The last post about this check (report, change or reminder): reminders count from here. */
  postedAt: z.number(),
});

export const CheckStateSchema = z.strictObject({
  version: z.literal(CHECK_STATE_VERSION),
  machine: CheckStatusSchema,
  /** The tool's summary from the latest run. */
  detail: z.string(),
  /** One entry per run, newest last, at most 10: did that run raise or clear the check. */
  recentChanges: z.array(z.boolean()).max(10),
  /** Set while the check is flapping: since when. */
  flappingSince: z.number().optional(),
  /** What the channel was last told; absent when no open report shows this check. */
  reported: ReportedSchema.optional(),
});
export type CheckState = z.infer<typeof CheckStateSchema>;

/** The level a check's status calls for in the channel, or undefined when there is nothing to show. */
export function activeLevel(status: CheckStatus): CheckLevel | undefined {
  if (status.status === 'resolving') return activeLevel(status.was);
  if (status.status === 'firing') return status.severity;
  if (status.status === 'error') return 'error';
  return undefined;
}

/** The status in words, for a report line's `previous`: a failing status is named by its level. */
export function statusWord(status: CheckStatus): string {
  if (status.status === 'resolving') return 'resolving';
  return activeLevel(status) ?? status.status;
}
