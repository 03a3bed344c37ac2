// A patrol report as a neutral view: a header with the level and the patrol, one line per changed check, a footer
// with the run, the next run and the timezone, and Ack / Snooze / Run again while the report is open.
import type { PatrolReportLine, PatrolReportMessage } from '../../agent/chat-port.js';
import { encodeButton, SNOOZE_CHOICES } from './button-codec.js';
import type { MessageView, ViewBlock, ViewButton } from './message-view-types.js';
import { inert } from './neutralize-pings.js';
import { clip, splitText } from './split-text.js';
import type { ViewLimits } from './view-limits.js';
import { readableUtc } from './view-time.js';

const LEVEL_WORDS: Record<PatrolReportMessage['level'], { icon: string; word: string }> = {
  critical: { icon: '🔴', word: 'CRITICAL' },
  warn: { icon: '🟠', word: 'WARNING' },
  error: { icon: '⚪', word: 'CHECK ERROR' },
  flapping: { icon: '🟣', word: 'FLAPPING' },
  resolved: { icon: '🟢', word: 'RESOLVED' },
};

const CHANGE_WORDS: Record<PatrolReportLine['change'], string> = {
  firing: 'failing',
  severity_changed: 'severity changed',
  resolved: 'resolved',
  error: 'could not run',
  flapping: 'flapping',
  reminder: 'still failing',
  still_failing: 'still failing',
};

export function patrolReportHeading(report: Pick<PatrolReportMessage, 'level' | 'patrol'>): string {
  const { icon, word } = LEVEL_WORDS[report.level];
  return `${icon} ${word} · ${report.patrol}`;
}

/** One check's line: `api` (http_check) failing, critical: HTTP 503 (expected 200) · was ok since 12:05 UTC. */
export function patrolLineText(line: PatrolReportLine): string {
  const severity = line.severity && line.change !== 'resolved' ? `, ${line.severity}` : '';
  // A check failing from its very first run has no earlier state to name.
  const before =
    line.previous === 'unknown'
      ? `first run ${readableUtc(line.since)}`
      : `was ${line.previous} since ${readableUtc(line.since)}`;
  return `\`${line.checkId}\` (${line.tool}) ${CHANGE_WORDS[line.change]}${severity}: ${line.detail} · ${before}`;
}

export function patrolReportView(report: PatrolReportMessage, now: number, limits: ViewLimits): MessageView {
  const heading = inert(clip(patrolReportHeading(report), limits.headingChars));
  const lines = report.lines.map((line) => `• ${patrolLineText(line)}`).join('\n');
  const blocks: ViewBlock[] = [
    ...markdown(lines, limits),
    ...(report.summary ? markdown(report.summary, limits, 'Summary') : []),
  ];
  const states = [
    report.resolvedAt
      ? `Resolved at ${readableUtc(report.resolvedAt)}${openFor(report.openedAt, report.resolvedAt)}`
      : '',
    report.acked ? `Acked by ${report.acked.by} at ${readableUtc(report.acked.at)}: no reminders` : '',
    report.snoozedUntil && report.snoozedUntil > now
      ? `Snoozed until ${readableUtc(report.snoozedUntil)}`
      : '',
  ].filter(Boolean);
  if (states.length > 0) blocks.push({ type: 'text', format: 'plain', text: inert(states.join(' · ')) });
  const footer = [
    report.runId,
    report.late ? 'late run after downtime' : '',
    report.nextRunAt ? `next run ${nextRun(report.nextRunAt)}` : '',
    `schedule in ${report.timezone}`,
  ]
    .filter(Boolean)
    .join(' · ');
  return {
    kind: 'patrol_report',
    tone: report.level === 'resolved' ? 'success' : report.level === 'warn' ? 'warning' : 'error',
    summary: inert(
      clip(`${patrolReportHeading(report)}: ${report.lines.map((l) => l.checkId).join(', ')}`, 300),
    ),
    heading,
    blocks,
    buttons: report.buttons ? reportButtons(report.reportId, report.acked !== undefined) : [],
    footer: inert(footer),
  };
}

function reportButtons(reportId: string, acked: boolean): ViewButton[] {
  return [
    ...(acked
      ? []
      : [{ id: encodeButton({ action: 'patrol_ack', reportId }), label: 'Ack', style: 'primary' as const }]),
    ...SNOOZE_CHOICES.map(
      (snooze): ViewButton => ({
        id: encodeButton({ action: 'patrol_snooze', reportId, snooze }),
        label: `Snooze ${snooze}`,
        style: 'default',
      }),
    ),
    { id: encodeButton({ action: 'patrol_run', reportId }), label: 'Run again', style: 'default' },
  ];
}

function markdown(text: string, limits: ViewLimits, label?: string): ViewBlock[] {
  if (text.trim() === '') return [];
  return splitText(inert(text), {
    max: limits.textChars,
    ...(limits.weight ? { weight: limits.weight } : {}),
  }).map((chunk, index) => ({
    type: 'text',
    format: 'markdown',
    text: chunk,
    ...(label && index === 0 ? { label } : {}),
  }));
}

/** To the minute, or to the second for schedules that run more often than on whole minutes. */
function nextRun(at: number): string {
  if (at % 60_000 === 0) return readableUtc(at);
  return `${new Date(at).toISOString().slice(0, 19).replace('T', ' ')} UTC`;
}

/**
 * How long the report was open. Not from its lines: a line's `since` is when the state before the failure began
 * (ok for days, say), not when the failure did.
 */
function openFor(openedAt: number | undefined, resolvedAt: number): string {
  if (openedAt === undefined) return '';
  return `, open for ${Math.max(1, Math.round((resolvedAt - openedAt) / 60_000))} min`;
}
