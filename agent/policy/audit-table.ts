// The audit log as a table for a terminal: one line per entry, and one per fold of unchanged patrol runs.
import { type AuditEntry, describeActor } from './audit-log.js';
import type { AuditRow } from './audit-patrol-summary.js';

// Model and tool text can carry terminal escape sequences; a printed audit log must not run them.
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/g;

function cell(text: string, max: number): string {
  const clean = text.replace(CONTROL, ' ');
  return clean.length > max ? `${clean.slice(0, max - 1)}…` : clean;
}

function where(entry: AuditEntry): string {
  if (entry.channelName) return `#${entry.channelName.replace(/^#/, '')}`;
  if (!entry.conversation) return '';
  return `${entry.conversation.platform}:${entry.conversation.channelId}`;
}

function detail(entry: AuditEntry): string {
  const parts = [
    entry.outcome,
    entry.reason,
    entry.args === undefined ? undefined : JSON.stringify(entry.args),
  ];
  return parts.filter((part) => part !== undefined && part !== '').join(' — ');
}

/** A readable table for the terminal, one line per entry. */
export function formatAuditEntries(entries: readonly AuditEntry[]): string {
  return formatAuditRows(entries.map((entry) => ({ kind: 'entry', entry })));
}

/** The table with folded patrol runs: each fold is one line under the time column. */
export function formatAuditRows(shown: readonly AuditRow[]): string {
  const header = ['time (UTC)', 'kind', 'who', 'where', 'tool', 'run', 'detail'];
  // The folds printed before the entry at each index (at entries.length: after the last).
  const folds = new Map<number, string[]>();
  const entries: AuditEntry[] = [];
  for (const row of shown) {
    if (row.kind === 'entry') {
      entries.push(row.entry);
      continue;
    }
    const before = folds.get(entries.length);
    if (before) before.push(row.text);
    else folds.set(entries.length, [row.text]);
  }
  const rows = entries.map((entry) => [
    new Date(entry.at).toISOString().replace('T', ' ').slice(0, 19),
    entry.kind,
    cell(describeActor(entry.actor), 48),
    cell(where(entry), 24),
    cell(entry.tool ?? '', 32),
    cell(entry.runId ?? '', 24),
    cell(detail(entry), 160),
  ]);
  const widths = header.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => row[column]!.length)),
  );
  const line = (row: string[]) =>
    row
      .map((text, column) => (column === row.length - 1 ? text : text.padEnd(widths[column]!)))
      .join('  ')
      .trimEnd();
  const indent = ' '.repeat(widths[0]! + 2);
  const foldsAt = (index: number) => (folds.get(index) ?? []).map((text) => `${indent}${cell(text, 200)}`);
  const lines = [line(header)];
  rows.forEach((row, index) => {
    lines.push(...foldsAt(index), line(row));
  });
  lines.push(...foldsAt(rows.length));
  return lines.join('\n');
}
