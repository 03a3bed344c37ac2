// One patrol run, decided: each check's next state, and the posts the run makes. Pure: time comes in as `now`.
//
// The first run after start-up needs no special case: states are stored, so a check whose stored state is
// firing and still fails posts nothing (or a reminder if one is due), one stored as firing that passes
// resolves as usual, and a check with no stored state or an ok one that passes posts nothing. "All fine" is
// never posted on its own: only a check that was reported can post a resolve.
//
// Holding back: while a check or its patrol is snoozed nothing is posted for it, and during quiet hours only
// changes at `min_severity` or above are; their states still advance, and the next run that may post tells the
// channel where the check is then (see check-report-change.ts). A check with no outcome this run (not run) keeps
// its state and posts nothing. States are returned for the patrol's checks only: a removed check's state goes.
import type { CheckOutcome } from './check-outcome.js';
import type { PostHold } from './check-report-change.js';
import type { CheckState } from './check-state.js';
import { nextCheckState } from './next-check-state.js';
import { type CheckChangeOf, groupPosts, type PatrolPost } from './patrol-posts.js';
import type { Patrol } from './patrol-settings.js';
import { inQuietHours } from './quiet-hours.js';

/** What the store knows of a report that matters here. */
export type ReportFacts = { acked?: { by: string; at: number } };

export type PatrolEvaluationInput = {
  patrol: Patrol;
  /** Stored states by check id, as read back (and validated) from the store. */
  states: Readonly<Record<string, CheckState | undefined>>;
  /** This run's outcomes by check id. */
  outcomes: Readonly<Record<string, CheckOutcome>>;
  now: number;
  /** The id the run's new report gets, if it posts one. */
  newReportId: string;
  /** The reports the stored states point to, by report id. */
  reports: Readonly<Record<string, ReportFacts>>;
  patrolSnoozedUntil?: number;
  /** Snoozes of single checks, by check id. */
  checkSnoozedUntil?: Readonly<Record<string, number>>;
};

export type PatrolEvaluation = { states: Record<string, CheckState>; posts: PatrolPost[] };

function own<T>(record: Readonly<Record<string, T>> | undefined, key: string): T | undefined {
  return record && Object.hasOwn(record, key) ? record[key] : undefined;
}

export function evaluatePatrol(input: PatrolEvaluationInput): PatrolEvaluation {
  const { patrol, now, newReportId } = input;
  const quiet = patrol.quiet_hours && inQuietHours(patrol.quiet_hours, now) ? patrol.quiet_hours : undefined;
  const patrolSnoozed = (input.patrolSnoozedUntil ?? 0) > now;
  const states: Record<string, CheckState> = {};
  const changes: CheckChangeOf[] = [];

  for (const check of patrol.checks) {
    const stored = own(input.states, check.id);
    const outcome = own(input.outcomes, check.id);
    if (!outcome) {
      if (stored) states[check.id] = stored;
      continue;
    }
    const snoozed = patrolSnoozed || (own(input.checkSnoozedUntil, check.id) ?? 0) > now;
    const hold: PostHold = snoozed
      ? { kind: 'snoozed' }
      : quiet
        ? { kind: 'quiet', minSeverity: quiet.min_severity }
        : { kind: 'none' };
    const reportId = stored?.reported?.reportId;
    const acked = reportId !== undefined && own(input.reports, reportId)?.acked !== undefined;
    const step = nextCheckState(
      stored,
      outcome,
      {
        raiseAfter: patrol.raise_after,
        clearAfter: patrol.clear_after,
        remindEvery: patrol.remind_every,
        acked,
        hold,
        newReportId,
      },
      now,
    );
    states[check.id] = step.state;
    if (step.change) changes.push({ check, change: step.change });
  }
  return { states, posts: groupPosts(changes, states, newReportId) };
}
