// What one patrol run posts: at most one new report, and per existing report a thread reply and a new header.
import type { PatrolReportLine, PatrolReportMessage } from '../agent/chat-port.js';
import type { CheckChange } from './check-report-change.js';
import type { CheckState, ShownLevel } from './check-state.js';
import type { PatrolCheck } from './patrol-settings.js';

export type ReportLevel = PatrolReportMessage['level'];

export type PatrolPost =
  /** Every check that newly fires, errors or flaps this run, in one message. */
  | { kind: 'new_report'; reportId: string; level: ShownLevel; lines: PatrolReportLine[] }
  /** Resolves, severity changes and reminders for the checks of one existing report, in its thread. */
  | { kind: 'thread_reply'; reportId: string; lines: PatrolReportLine[] }
  /**
   * The existing report brought up to date: its level now, which of its checks resolved this run, and the new line
   * of each check that changed, in place of its old one (a resolved card does not keep "failing" under RESOLVED).
   */
  | {
      kind: 'update_report';
      reportId: string;
      level: ReportLevel;
      resolvedCheckIds: string[];
      allResolved: boolean;
      lines: PatrolReportLine[];
    };

const worstFirst: ShownLevel[] = ['critical', 'error', 'warn', 'flapping'];

/** The worst of some levels: critical, then error (could not run), then warn, then flapping. */
function worstLevel(levels: Iterable<ShownLevel>): ShownLevel | undefined {
  const present = new Set(levels);
  return worstFirst.find((level) => present.has(level));
}

export type CheckChangeOf = { check: PatrolCheck; change: CheckChange };

type Thread = { lines: PatrolReportLine[]; header: boolean; resolvedCheckIds: string[] };

/**
 * Groups a run's changes into posts. `states` are the checks' states after the run: a report's header level is
 * the worst level its checks still show, and `resolved` once none shows anything.
 */
export function groupPosts(
  changes: CheckChangeOf[],
  states: Record<string, CheckState>,
  newReportId: string,
): PatrolPost[] {
  const newLines: PatrolReportLine[] = [];
  const threads = new Map<string, Thread>();
  for (const { check, change } of changes) {
    const line: PatrolReportLine = { checkId: check.id, tool: check.tool, ...change.line };
    if (change.reportId === undefined) {
      newLines.push(line);
      continue;
    }
    const thread = threads.get(change.reportId) ?? { lines: [], header: false, resolvedCheckIds: [] };
    threads.set(change.reportId, thread);
    thread.lines.push(line);
    if (change.kind !== 'reminder') thread.header = true;
    if (Object.hasOwn(states, check.id) && states[check.id]?.reported === undefined)
      thread.resolvedCheckIds.push(check.id);
  }

  const posts: PatrolPost[] = [];
  const newLevel = worstLevel(newLines.map(lineLevel));
  if (newLevel) posts.push({ kind: 'new_report', reportId: newReportId, level: newLevel, lines: newLines });
  for (const [reportId, thread] of threads) {
    posts.push({ kind: 'thread_reply', reportId, lines: thread.lines });
    if (!thread.header) continue;
    const shown = Object.values(states).flatMap((state) =>
      state.reported?.reportId === reportId ? [state.reported.level] : [],
    );
    const level = worstLevel(shown);
    posts.push({
      kind: 'update_report',
      reportId,
      level: level ?? 'resolved',
      resolvedCheckIds: thread.resolvedCheckIds,
      allResolved: level === undefined,
      // A reminder changes nothing the card says; the other changes replace their check's line.
      lines: thread.lines.filter((line) => line.change !== 'reminder' && line.change !== 'still_failing'),
    });
  }
  return posts;
}

function lineLevel(line: PatrolReportLine): ShownLevel {
  if (line.change === 'flapping' || line.change === 'error') return line.change;
  return line.severity ?? 'warn';
}

/**
 * The states to save after a run's posts: a check whose report's posts (its new report, or its report's thread
 * reply and header) were all made gets its new state; one whose post failed, was never made, or was made by
 * another run keeps its stored state, so no state points at a report this run did not post and the next run finds
 * the same change and posts it. Checks no post concerns move on.
 */
export function statesAfterPosts(
  stored: Readonly<Record<string, CheckState>>,
  next: Record<string, CheckState>,
  posts: PatrolPost[],
  done: readonly PatrolPost[],
): Record<string, CheckState> {
  const checksOf = new Map<string, Set<string>>();
  const unfinished = new Set<string>();
  for (const post of posts) {
    const checks = checksOf.get(post.reportId) ?? new Set<string>();
    checksOf.set(post.reportId, checks);
    const ids =
      post.kind === 'update_report' ? post.resolvedCheckIds : post.lines.map((line) => line.checkId);
    for (const id of ids) checks.add(id);
    if (!done.includes(post)) unfinished.add(post.reportId);
  }
  const held = new Set([...unfinished].flatMap((reportId) => [...(checksOf.get(reportId) ?? [])]));
  const states: Record<string, CheckState> = {};
  for (const [checkId, state] of Object.entries(next)) {
    if (!held.has(checkId)) states[checkId] = state;
    else if (Object.hasOwn(stored, checkId)) states[checkId] = stored[checkId]!;
  }
  return states;
}
