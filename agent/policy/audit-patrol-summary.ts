// A patrol that runs every minute writes the same few lines every minute. Printed for a person, a patrol run
// whose outcomes are those of the patrol's run before it (nothing changed) is folded into one line; a run that
// changed something is listed in full. `--json` and `--all` keep every line.
import type { AuditEntry } from './audit-log.js';

export type AuditRow = { kind: 'entry'; entry: AuditEntry } | { kind: 'folded'; at: number; text: string };

const PATROL_KEY = /^patrol:(.+)$/;

export function foldUnchangedPatrolRuns(entries: readonly AuditEntry[]): AuditRow[] {
  const byRun = new Map<string, AuditEntry[]>();
  for (const entry of entries) {
    if (!entry.runId || !PATROL_KEY.test(entry.actor.key)) continue;
    const lines = byRun.get(entry.runId);
    if (lines) lines.push(entry);
    else byRun.set(entry.runId, [entry]);
  }
  // Each patrol's runs in order, with whether its outcomes repeat the run before.
  const lastOutcomes = new Map<string, string>();
  const unchanged = new Set<string>();
  for (const [runId, lines] of byRun) {
    const patrol = lines[0]!.actor.key;
    const outcomes = lines.map((line) => `${line.kind} ${line.tool ?? ''} ${line.outcome ?? ''}`).join('|');
    if (lastOutcomes.get(patrol) === outcomes) unchanged.add(runId);
    lastOutcomes.set(patrol, outcomes);
  }
  const rows: AuditRow[] = [];
  // The fold being filled: consecutive unchanged runs of one patrol, with nothing else printed between them.
  let open:
    | { patrol: string; runs: Set<string>; first: number; row: Extract<AuditRow, { kind: 'folded' }> }
    | undefined;
  for (const entry of entries) {
    if (!entry.runId || !unchanged.has(entry.runId)) {
      rows.push({ kind: 'entry', entry });
      open = undefined;
      continue;
    }
    const patrol = PATROL_KEY.exec(entry.actor.key)?.[1] ?? entry.actor.key;
    if (open?.patrol !== patrol) {
      open = { patrol, runs: new Set(), first: entry.at, row: { kind: 'folded', at: entry.at, text: '' } };
      rows.push(open.row);
    }
    open.runs.add(entry.runId);
    open.row.text = foldedText(patrol, open.runs.size, open.first, entry.at);
  }
  return rows;
}

function foldedText(patrol: string, runs: number, first: number, last: number): string {
  const span = first === last ? clock(first) : `${clock(first)}–${clock(last)}`;
  return `… ${runs} more run${runs === 1 ? '' : 's'} of patrol ${patrol} with the same outcomes as the run before (${span}); --all lists them`;
}

function clock(at: number): string {
  return new Date(at).toISOString().slice(11, 16);
}
