// Judges a patrol scenario round by round: what each run posted, that the model was never asked, and never_shown.
// Every unmet expectation becomes one readable reason, as judge.ts does for a task.
import type { PatrolReportMessage } from '../agent/chat-port.js';
import { patrolLineText, patrolReportHeading } from '../bot/chat/patrol-report-view.js';
import { textProblems } from './matchers.js';
import type { PatrolBlock, PostedText, RoundExpect } from './patrol-schema.js';

/** A patrol report as first posted, and whether it went into a report's thread (a reply). */
export type PostedReport = PatrolReportMessage & { inThread: boolean };

export interface RoundOutcome {
  /** New messages: reports in the channel and replies in threads. */
  posted: PostedReport[];
  /** In-place updates of earlier reports made this round (a header turning resolved). */
  updated: PatrolReportMessage[];
  /** Messages that were no patrol report at all. */
  otherMessages: number;
  /** Why the round's run did not happen or ended without results. */
  problem?: string;
}

export interface PatrolOutcome {
  rounds: RoundOutcome[];
  /** Every request the fake model server received: a patrol must make none. */
  modelRequests: string[];
  /** Every chat message and its updates, as JSON, for never_shown. */
  chatMessages: string[];
}

/** A report as a person reads it: the heading, one line per check, and the summary if any. */
export function reportText(report: PatrolReportMessage): string {
  return [patrolReportHeading(report), ...report.lines.map(patrolLineText), report.summary ?? ''].join('\n');
}

function describeReport(report: PostedReport): string {
  const checks = report.lines.map((line) => `${line.checkId} ${line.change}`).join(', ');
  return `${report.inThread ? 'a reply' : 'a report'} (${report.level}: ${checks})`;
}

function describePosted(round: RoundOutcome): string {
  if (round.posted.length === 0) return 'nothing was posted';
  return `posted ${round.posted.map(describeReport).join(', ')}`;
}

function postedProblems(what: string, expected: PostedText, found: PostedReport | undefined): string[] {
  if (!found) return [`${what}: there is none`];
  const problems: string[] = [];
  if (expected.level !== undefined && found.level !== expected.level)
    problems.push(`${what} is ${found.level}, expected ${expected.level}`);
  if (expected.checks) {
    const named = found.lines.map((line) => line.checkId).sort();
    const wanted = [...expected.checks].sort();
    if (named.join(',') !== wanted.join(','))
      problems.push(`${what} names ${named.join(', ') || 'no check'}, expected ${wanted.join(', ')}`);
  }
  problems.push(...textProblems(what, expected, reportText(found)));
  return problems;
}

function roundProblems(label: string, expect: RoundExpect, round: RoundOutcome): string[] {
  if (round.problem) return [`${label}: ${round.problem}`];
  const problems: string[] = [];
  const count = round.posted.length + round.otherMessages;
  if (expect.posts !== undefined && count !== expect.posts)
    problems.push(`${label}: ${describePosted(round)}, expected ${expect.posts} post(s)`);
  const report = round.posted.find((post) => !post.inThread);
  if (expect.report) {
    if (report) problems.push(...postedProblems(`${label}: the report`, expect.report, report));
    else problems.push(`${label}: expected a new report; ${describePosted(round)}`);
  }
  const reply = round.posted.find((post) => post.inThread);
  if (expect.reply) {
    if (reply) problems.push(...postedProblems(`${label}: the reply`, expect.reply, reply));
    else problems.push(`${label}: expected a reply in a report's thread; ${describePosted(round)}`);
  }
  const resolved = round.updated.some((update) => update.level === 'resolved');
  if (expect.resolved === true && !resolved)
    problems.push(`${label}: expected a report to be marked resolved; ${describePosted(round)}`);
  if (expect.resolved === false && resolved)
    problems.push(`${label}: a report was marked resolved, expected none`);
  return problems;
}

/** Every reason the patrol scenario failed; empty when it passed. */
export function judgePatrol(block: PatrolBlock, neverShown: string[], outcome: PatrolOutcome): string[] {
  const problems = block.rounds.flatMap((round, index) => {
    const happened = outcome.rounds[index];
    const label = `round ${index + 1}`;
    return happened ? roundProblems(label, round.expect, happened) : [`${label}: did not run`];
  });
  if (outcome.modelRequests.length > 0)
    problems.push(`the model was asked ${outcome.modelRequests.length} time(s); a patrol must not ask it`);
  for (const secret of neverShown) {
    const places = [
      outcome.modelRequests.some((body) => body.includes(secret)) ? 'a model request' : '',
      outcome.chatMessages.some((message) => message.includes(secret)) ? 'a chat message' : '',
    ].filter(Boolean);
    if (places.length > 0) problems.push(`"${secret}" was shown in ${places.join(', ')}`);
  }
  return problems;
}
