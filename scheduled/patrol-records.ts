// What the Store keeps for patrols besides check states: reports (to update them and their threads), each
// patrol's controls (paused, snoozed) and its recent history. Validated with zod when read back.
import { z } from 'zod';
import { ConversationSchema } from '../agent/conversation.js';

export const patrolRecordKeys = {
  /** Each check's state, by check id (scheduled/check-state.ts). */
  checks: (name: string) => `patrol:${name}:checks`,
  /** Paused or snoozed, and by whom. */
  control: (name: string) => `patrol:${name}:control`,
  /** The latest runs, newest last, bounded in number and age. */
  history: (name: string) => `patrol:${name}:history`,
  /** One posted report, by its id. */
  report: (reportId: string) => `patrol_report:${reportId}`,
  /** Taken once per patrol, slot and kind of post, so a retried or duplicated run never posts twice. */
  post: (name: string, slotMs: number, kind: string) => `patrol_post:${name}:${slotMs}:${kind}`,
} as const;

const PatrolReportLineSchema = z.object({
  checkId: z.string(),
  tool: z.string(),
  change: z.enum([
    'firing',
    'severity_changed',
    'resolved',
    'error',
    'flapping',
    'reminder',
    'still_failing',
  ]),
  severity: z.enum(['warn', 'critical']).optional(),
  detail: z.string(),
  previous: z.string(),
  since: z.number(),
});

const ByAtSchema = z.object({ by: z.string(), at: z.number() });

export const PatrolReportRecordSchema = z.object({
  reportId: z.string(),
  patrol: z.string(),
  /** Where the report is: its channel and message; replies go in its thread. */
  ref: z.object({ conversation: ConversationSchema, messageId: z.string() }),
  level: z.enum(['critical', 'warn', 'error', 'resolved', 'flapping']),
  lines: z.array(PatrolReportLineSchema),
  checkIds: z.array(z.string()),
  runId: z.string(),
  summary: z.string().optional(),
  late: z.boolean().optional(),
  openedAt: z.number(),
  resolvedAt: z.number().optional(),
  acked: ByAtSchema.optional(),
  snoozedUntil: z.number().optional(),
});
export type PatrolReportRecord = z.infer<typeof PatrolReportRecordSchema>;

/** `*` is the whole patrol; other keys are check ids. */
export const PATROL_WIDE = '*';

export const PatrolControlSchema = z.object({
  /** A paused patrol skips its ticks; `until` absent means until someone resumes it. */
  paused: ByAtSchema.extend({ until: z.number().optional() }).optional(),
  snoozes: z.record(z.string(), ByAtSchema.extend({ until: z.number() })).default({}),
});
export type PatrolControl = z.infer<typeof PatrolControlSchema>;

export const PatrolHistoryEntrySchema = z.object({
  at: z.number(),
  runId: z.string().optional(),
  late: z.boolean(),
  manual: z.boolean(),
  /** Checks that failed or could not run this time, with their level. */
  failing: z.array(z.object({ checkId: z.string(), level: z.enum(['warn', 'critical', 'error']) })),
  passed: z.number().int().nonnegative(),
  /** What the run posted: `report`, `reply`, `update`; empty when it stayed quiet. */
  posted: z.array(z.string()),
  /** Why the run ended without results (cancelled, failed), when it did. */
  problem: z.string().optional(),
});
export type PatrolHistoryEntry = z.infer<typeof PatrolHistoryEntrySchema>;
