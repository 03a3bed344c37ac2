// The alerts bench's figures: one record per (receiver, round), min and median per receiver, and the printed table
// with opsbot's ratio to the plain node:http server measured in the same session.
import { type MinMedian, minMedian } from '../stats.js';
import type { ReceiverName } from './receiver-process.js';
import type { GroupExpectation } from './storm-expectations.js';

export interface AlertsRound {
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  /** From the first notification sent to the last answer. */
  wallMs: number;
  /** The receiver's user+system CPU from the storm's first notification to its last answer, per notification. */
  cpuMsPerNotification: number;
  /** Resident memory when the storm's last answer came, and the process's peak (after the investigations, for opsbot). */
  rssMb: number;
  peakRssMb: number;
  statuses: Record<string, number>;
  outcomes?: Record<string, number>;
  posts?: { perGroup: string; total: number; investigations: number };
}

const FIGURES = ['p50Ms', 'p99Ms', 'maxMs', 'wallMs', 'cpuMsPerNotification', 'rssMb', 'peakRssMb'] as const;
type Figure = (typeof FIGURES)[number];
export type AlertsSummary = Record<ReceiverName, Record<Figure, MinMedian>>;

export function summarize(results: Record<ReceiverName, AlertsRound[]>): AlertsSummary {
  const entries = Object.entries(results).map(([name, rounds]) => [
    name,
    Object.fromEntries(FIGURES.map((figure) => [figure, minMedian(rounds.map((round) => round[figure]))])),
  ]);
  return Object.fromEntries(entries) as AlertsSummary;
}

export function printReport(
  summary: AlertsSummary,
  session: { rounds: number; expected: Map<string, GroupExpectation>; cap: number; problems: string[] },
): void {
  const cell = (v: MinMedian, digits = 2) =>
    `${v.min.toFixed(digits)}/${v.median.toFixed(digits)}`.padStart(15);
  const ratio = (figure: Figure) => ({
    min: summary.opsbot[figure].min / summary['plain-node'][figure].min,
    median: summary.opsbot[figure].median / summary['plain-node'][figure].median,
  });
  const header = ['p50 ms', 'p99 ms', 'max ms', 'storm s', 'CPU ms/notif', 'RSS MB', 'peak RSS MB'];
  console.log(`\n${'receiver'.padEnd(12)}${header.map((h) => h.padStart(15)).join('')}`);
  for (const name of ['opsbot', 'plain-node'] as const) {
    const row = summary[name];
    const wall = { min: row.wallMs.min / 1000, median: row.wallMs.median / 1000 };
    console.log(
      `${name.padEnd(12)}${cell(row.p50Ms)}${cell(row.p99Ms)}${cell(row.maxMs, 1)}${cell(wall)}${cell(row.cpuMsPerNotification)}${cell(row.rssMb, 0)}${cell(row.peakRssMb, 0)}`,
    );
  }
  console.log(
    `${'× plain'.padEnd(12)}${cell(ratio('p50Ms'))}${cell(ratio('p99Ms'))}${cell(ratio('maxMs'))}${cell(ratio('wallMs'))}${cell(ratio('cpuMsPerNotification'))}${cell(ratio('rssMb'))}${cell(ratio('peakRssMb'))}`,
  );
  const shapes = new Map<string, number>();
  for (const want of session.expected.values()) {
    const shape = `${want.roots} root + ${want.changes} changes (${want.duplicates} resends post nothing)`;
    shapes.set(shape, (shapes.get(shape) ?? 0) + 1);
  }
  console.log(
    `\nposts per group expected from the notifications: ${[...shapes].map(([shape, n]) => `${shape}: ${n} groups`).join('; ')}`,
  );
  console.log(
    session.problems.length === 0
      ? `every round posted exactly that, and started ${session.cap} investigations (the cap)`
      : `PROBLEMS (${session.problems.length}):\n${session.problems
          .slice(0, 20)
          .map((p) => `  ${p}`)
          .join('\n')}`,
  );
  console.log(
    `min/median over ${session.rounds} rounds; ratio min = min/min, median = median/median; each process cold (no warm-up: a storm meets a bot that was idle)`,
  );
}
