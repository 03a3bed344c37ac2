// What the channel must be told about a check: the difference between its state and what was last reported.
//
// Posting is a reconciliation, not a replay. Each run compares the level the state calls for (critical, warn,
// error, flapping or nothing) with the level the channel shows, and posts one line for the difference:
// - nothing shown, something to show: a new report line (firing, error or flapping);
// - something shown, nothing to show: resolved, in the report's thread (after flapping: stable again, resolved);
// - another level: a severity change (or error, or flapping, or stable again) in the thread, and a new header;
// - the same failing level: a reminder in the thread once `remind_every` has passed since the last post about
//   it, unless the report was acked.
// A change that is held back (snooze, quiet hours) is simply not posted and not recorded as shown, so the next
// run that may post finds the difference still there, or finds it gone: a check that fired and resolved while
// held back posts nothing, and a long hold posts one line, not a backlog.
//
// Quiet hours hold a change whose levels are all below `min_severity`: a line concerns the level shown before
// and the level shown after, ranked critical above warn; error and flapping rank as warn (not known to be
// down, or noise), and ok as nothing. So a critical check's resolve goes out at once at night; a warn's waits.
import { activeLevel, type CheckState, type Earlier, type ShownLevel, statusWord } from './check-state.js';
import type { Severity } from './patrol-settings.js';

/** Why posts about a check are held back this run. */
export type PostHold = { kind: 'none' } | { kind: 'snoozed' } | { kind: 'quiet'; minSeverity: Severity };

export type ReportContext = {
  hold: PostHold;
  /** Repeat a still-failing line this often (ms); no reminders when absent. */
  remindEvery?: number;
  /** The check's open report was acked: no reminders. */
  acked: boolean;
  /** The id a new report would get this run. */
  newReportId: string;
};

export type CheckChangeKind =
  | 'firing'
  | 'error'
  | 'flapping'
  | 'severity_changed'
  | 'resolved'
  | 'stable_again'
  | 'reminder';

/** A line to post about one check; checkId and tool are the patrol's to add. */
export type ChangeLine = {
  change: 'firing' | 'severity_changed' | 'resolved' | 'error' | 'flapping' | 'reminder';
  severity?: Severity;
  detail: string;
  previous: string;
  since: number;
};

export type CheckChange = {
  kind: CheckChangeKind;
  /** The open report this change is posted in; absent when it starts the run's new report. */
  reportId?: string;
  line: ChangeLine;
};

const rank: Record<ShownLevel | 'ok', number> = { ok: 0, flapping: 1, error: 1, warn: 1, critical: 2 };

/** The level the state calls for in the channel; `ok` when nothing should show. */
function wantedLevel(state: CheckState): ShownLevel | 'ok' {
  if (state.flappingSince !== undefined) return 'flapping';
  // Passing again but not yet cleared: the channel keeps showing it failing, and a check never shown stays
  // unshown; a check that stops flapping while it passes shows the level it is failing at.
  if (state.machine.status === 'resolving') {
    const shown = state.reported?.level;
    if (shown === undefined) return 'ok';
    return shown === 'flapping' ? (activeLevel(state.machine.was) ?? 'ok') : shown;
  }
  return activeLevel(state.machine) ?? 'ok';
}

/** When the wanted level began: the failing status's start, or the flapping's. */
function wantedSince(state: CheckState): number {
  if (state.flappingSince !== undefined) return state.flappingSince;
  const machine = state.machine;
  return machine.status === 'resolving' ? machine.was.since : machine.since;
}

function held(hold: PostHold, levels: (ShownLevel | 'ok')[]): boolean {
  if (hold.kind === 'none') return false;
  if (hold.kind === 'snoozed') return true;
  return Math.max(...levels.map((level) => rank[level])) < rank[hold.minSeverity];
}

function lineFor(
  kind: CheckChangeKind,
  level: ShownLevel | 'ok',
  detail: string,
  previous: Earlier,
): ChangeLine {
  const severity = level === 'warn' || level === 'critical' ? { severity: level } : {};
  return {
    change: lineChange(kind, level),
    ...severity,
    detail,
    previous: previous.word,
    since: previous.since,
  };
}

function lineChange(kind: CheckChangeKind, level: ShownLevel | 'ok'): ChangeLine['change'] {
  if (kind === 'reminder') return 'reminder';
  if (level === 'ok') return 'resolved';
  if (level === 'flapping' || level === 'error') return level;
  return kind === 'severity_changed' ? 'severity_changed' : 'firing';
}

/** The state before its failing status began: for a raise line's `previous`. */
function beforeFailing(state: CheckState): Earlier {
  const machine = state.machine.status === 'resolving' ? state.machine.was : state.machine;
  if (machine.status === 'firing' || machine.status === 'error') return machine.previous;
  return { word: statusWord(machine), since: machine.since };
}

function kindOf(shown: ShownLevel | undefined, wanted: ShownLevel | 'ok'): CheckChangeKind {
  if (wanted === 'flapping') return 'flapping';
  if (shown === 'flapping') return 'stable_again';
  if (wanted === 'ok') return 'resolved';
  if (wanted === 'error') return 'error';
  return shown === undefined ? 'firing' : 'severity_changed';
}

/**
 * Compares a check's state (after this run's step) with what was reported, and returns what to post, if
 * anything, with the state recording it as shown. A held-back change returns no change and the state as it was.
 */
export function reportChange(
  state: CheckState,
  context: ReportContext,
  now: number,
): { state: CheckState; change?: CheckChange } {
  const shown = state.reported;
  const wanted = wantedLevel(state);
  if ((shown?.level ?? 'ok') === wanted) return remind(state, context, now);

  const levels: (ShownLevel | 'ok')[] = [shown?.level ?? 'ok', wanted];
  // A flapping check is as urgent as the worst level it is flapping to.
  if (wanted === 'flapping' || shown?.level === 'flapping') levels.push(activeLevel(state.machine) ?? 'ok');
  if (held(context.hold, levels)) return { state };

  const kind = kindOf(shown?.level, wanted);
  const previous: Earlier = shown
    ? { word: shown.level, since: shown.since }
    : wanted === 'flapping'
      ? { word: statusWord(state.machine), since: state.machine.since }
      : beforeFailing(state);
  const line = lineFor(kind, wanted, state.detail, previous);
  const reportId = shown?.reportId ?? context.newReportId;
  const { reported: _, ...rest } = state;
  const next: CheckState =
    wanted === 'ok'
      ? rest
      : { ...rest, reported: { reportId, level: wanted, since: wantedSince(state), postedAt: now } };
  return { state: next, change: { kind, ...(shown ? { reportId } : {}), line } };
}

function remind(
  state: CheckState,
  context: ReportContext,
  now: number,
): { state: CheckState; change?: CheckChange } {
  const shown = state.reported;
  if (!shown || shown.level === 'flapping' || context.acked || context.remindEvery === undefined)
    return { state };
  if (now - shown.postedAt < context.remindEvery) return { state };
  if (state.machine.status === 'resolving') return { state };
  if (held(context.hold, [shown.level])) return { state };
  const line = lineFor('reminder', shown.level, state.detail, { word: shown.level, since: shown.since });
  return {
    state: { ...state, reported: { ...shown, postedAt: now } },
    change: { kind: 'reminder', reportId: shown.reportId, line },
  };
}
