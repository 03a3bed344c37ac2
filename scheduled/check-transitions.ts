// The check state machine: how one run's outcome moves a check between ok, pending, firing, error and resolving.
//
// The machine knows nothing of posting. It says where a check is; scheduled/check-report-change.ts then compares
// that with what the channel was last told. Rules, per status and outcome:
// - ok: a pass stays ok; a failure or error starts counting, and the check is raised (firing or error) once
//   `raise_after` runs in a row were bad, pending before that.
// - pending: a pass goes back to ok (nothing was ever reported); a bad run counts on towards `raise_after`.
// - firing / error: a run at the same level changes nothing; a run at another level (warn, critical or error)
//   moves to that level at once, because the check is already reported and the change is news; a pass starts
//   counting towards `clear_after` (resolving), or clears at once when `clear_after` is 1.
// - resolving: a pass counts on, and the check is ok once `clear_after` passes in a row; a bad run falls back
//   to the failing state it came from (its `since` kept), or moves to the new level if that differs.
// Failures and errors count together towards `raise_after`: both mean "not known to be fine".
//
// Flapping: a run that raises or clears a check is a change (one that was, or would have been, reported;
// pending and level changes do not count). Four or more changes in the last 10 runs make the check flapping.
// It is stable again after 10 runs in a row without such a change.
import { type CheckLevel, type CheckOutcome, outcomeLevel } from './check-outcome.js';
import {
  type ActiveStatus,
  activeLevel,
  CHECK_STATE_VERSION,
  type CheckState,
  type CheckStatus,
  type Earlier,
  statusWord,
} from './check-state.js';

export type CheckThresholds = { raiseAfter: number; clearAfter: number };

/** Raised: ok or pending became firing or error. Cleared: firing, error or resolving became ok. */
export type CheckMovement = 'raised' | 'cleared' | 'none';

const FLAPPING_WINDOW = 10;
const FLAPPING_CHANGES = 4;

function active(level: CheckLevel, since: number, previous: Earlier): ActiveStatus {
  return level === 'error'
    ? { status: 'error', since, previous }
    : { status: 'firing', severity: level, since, previous };
}

/** The next status of the machine, and whether this run raised or cleared the check. */
export function nextStatus(
  status: CheckStatus | undefined,
  outcome: CheckOutcome,
  thresholds: CheckThresholds,
  now: number,
): { status: CheckStatus; movement: CheckMovement } {
  const level = outcomeLevel(outcome);
  if (status === undefined || status.status === 'ok') {
    if (level === undefined) return { status: status ?? { status: 'ok', since: now }, movement: 'none' };
    if (thresholds.raiseAfter <= 1) {
      const previous = status ? { word: 'ok', since: status.since } : { word: 'unknown', since: now };
      return { status: active(level, now, previous), movement: 'raised' };
    }
    return {
      status: { status: 'pending', since: now, failures: 1, ...(status ? { okSince: status.since } : {}) },
      movement: 'none',
    };
  }
  if (status.status === 'pending') {
    if (level === undefined) return { status: { status: 'ok', since: now }, movement: 'none' };
    const failures = status.failures + 1;
    if (failures >= thresholds.raiseAfter)
      return {
        status: active(level, now, { word: 'pending', since: status.since }),
        movement: 'raised',
      };
    return { status: { ...status, failures }, movement: 'none' };
  }
  if (status.status === 'resolving') {
    if (level === undefined) {
      const passes = status.passes + 1;
      if (passes >= thresholds.clearAfter)
        return { status: { status: 'ok', since: now }, movement: 'cleared' };
      return { status: { ...status, passes }, movement: 'none' };
    }
    const was = status.was;
    if (level === activeLevel(was)) return { status: was, movement: 'none' };
    return { status: active(level, now, { word: statusWord(was), since: was.since }), movement: 'none' };
  }
  if (level === undefined) {
    if (thresholds.clearAfter <= 1) return { status: { status: 'ok', since: now }, movement: 'cleared' };
    return { status: { status: 'resolving', since: now, passes: 1, was: status }, movement: 'none' };
  }
  if (level === activeLevel(status)) return { status, movement: 'none' };
  return { status: active(level, now, { word: statusWord(status), since: status.since }), movement: 'none' };
}

/** Keeps the flapping window and flag up to date after a run that moved (or did not move) the check. */
function nextFlapping(
  state: Pick<CheckState, 'recentChanges' | 'flappingSince'> | undefined,
  movement: CheckMovement,
  now: number,
): { recentChanges: boolean[]; flappingSince?: number } {
  const recentChanges = [...(state?.recentChanges ?? []), movement !== 'none'].slice(-FLAPPING_WINDOW);
  const changes = recentChanges.filter(Boolean).length;
  const wasFlapping = state?.flappingSince !== undefined;
  if (!wasFlapping)
    return changes >= FLAPPING_CHANGES ? { recentChanges, flappingSince: now } : { recentChanges };
  const stable = recentChanges.length === FLAPPING_WINDOW && changes === 0;
  return stable ? { recentChanges } : { recentChanges, flappingSince: state.flappingSince };
}

/** One run of the machine over a stored state: the new status, the flapping window and the latest detail. */
export function advanceCheck(
  state: CheckState | undefined,
  outcome: CheckOutcome,
  thresholds: CheckThresholds,
  now: number,
): { state: CheckState; movement: CheckMovement } {
  const { status, movement } = nextStatus(state?.machine, outcome, thresholds, now);
  const next: CheckState = {
    version: CHECK_STATE_VERSION,
    machine: status,
    detail: outcome.detail,
    ...nextFlapping(state, movement, now),
    ...(state?.reported ? { reported: state.reported } : {}),
  };
  return { state: next, movement };
}
