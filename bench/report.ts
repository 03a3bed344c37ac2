// Turns measurements into the figures the issue asks for: a side-by-side table, the target line and JSON.
import { cpus } from 'node:os';
import type { Measurement } from './measure.js';
import { RSS_SAMPLE_MS } from './measure.js';
import type { RunnerName } from './runners.js';

export const MAX_RATIO = 1.5;

export interface RunnerFigures {
  runs: number;
  model_turns: number;
  cpu_ms_per_turn: number;
  cpu_user_ms: number;
  cpu_system_ms: number;
  wall_s: number;
  runs_per_s: number;
  rss_mb: number;
  rss_end_mb: number;
  ratio_to_bare: number | null;
}

export interface BenchReport {
  generated_at: string;
  node: string;
  machine: { cpus: number; model: string };
  runs: number;
  concurrency: number;
  warmup_runs: number;
  turns_per_run: number;
  rss_mb_is: string;
  runners: Partial<Record<RunnerName, RunnerFigures>>;
  target: { max_ratio: number; ratio: number | null; met: boolean | null };
}

export function buildReport(
  measured: Partial<Record<RunnerName, Measurement>>,
  settings: { runs: number; concurrency: number; warmup: number; turnsPerRun: number },
): BenchReport {
  const cpuPerTurn = (m: Measurement) => (m.cpuUserMs + m.cpuSystemMs) / m.modelTurns;
  const bare = measured.bare ? cpuPerTurn(measured.bare) : undefined;
  const runners: Partial<Record<RunnerName, RunnerFigures>> = {};
  for (const [name, m] of Object.entries(measured) as [RunnerName, Measurement][]) {
    runners[name] = {
      runs: m.runs,
      model_turns: m.modelTurns,
      cpu_ms_per_turn: round(cpuPerTurn(m), 3),
      cpu_user_ms: round(m.cpuUserMs, 1),
      cpu_system_ms: round(m.cpuSystemMs, 1),
      wall_s: round(m.wallMs / 1000, 3),
      runs_per_s: round(m.runs / (m.wallMs / 1000), 1),
      rss_mb: round(m.peakRssBytes / 2 ** 20, 1),
      rss_end_mb: round(m.endRssBytes / 2 ** 20, 1),
      ratio_to_bare: bare === undefined ? null : round(cpuPerTurn(m) / bare, 2),
    };
  }
  const ratio = runners['kernel-sqlite']?.ratio_to_bare ?? null;
  const machine = cpus();
  return {
    generated_at: new Date().toISOString(),
    node: process.version,
    machine: { cpus: machine.length, model: machine[0]?.model.trim() ?? 'unknown' },
    runs: settings.runs,
    concurrency: settings.concurrency,
    warmup_runs: settings.warmup,
    turns_per_run: settings.turnsPerRun,
    rss_mb_is: `peak process RSS sampled every ${RSS_SAMPLE_MS} ms during the runner's measured runs (rss_end_mb: at its end); all runners share one process, so later ones inherit the heap`,
    runners,
    target: { max_ratio: MAX_RATIO, ratio, met: ratio === null ? null : ratio <= MAX_RATIO },
  };
}

const ROWS: [label: string, key: keyof RunnerFigures, unit: string][] = [
  ['CPU per model turn', 'cpu_ms_per_turn', 'ms'],
  ['ratio to bare (CPU/turn)', 'ratio_to_bare', '×'],
  ['runs per second (wall)', 'runs_per_s', ''],
  ['peak RSS', 'rss_mb', 'MB'],
  ['RSS at end', 'rss_end_mb', 'MB'],
  ['CPU user', 'cpu_user_ms', 'ms'],
  ['CPU system', 'cpu_system_ms', 'ms'],
  ['wall time', 'wall_s', 's'],
  ['model turns', 'model_turns', ''],
];

export function formatTable(report: BenchReport): string {
  const names = Object.keys(report.runners) as RunnerName[];
  const cell = (name: RunnerName, key: keyof RunnerFigures, unit: string) => {
    const value = report.runners[name]?.[key];
    return value === null || value === undefined ? '–' : `${value}${unit ? ` ${unit}` : ''}`;
  };
  const header = ['', ...names];
  const body = ROWS.map(([label, key, unit]) => [label, ...names.map((name) => cell(name, key, unit))]);
  const widths = header.map((_, column) => Math.max(...[header, ...body].map((row) => row[column]!.length)));
  const line = (row: string[]) =>
    row
      .map((text, column) => (column === 0 ? text.padEnd(widths[0]!) : text.padStart(widths[column]!)))
      .join('  ');
  return [line(header), widths.map((width) => '-'.repeat(width)).join('  '), ...body.map(line)].join('\n');
}

export function targetLine(report: BenchReport): string {
  const { ratio, max_ratio: max, met } = report.target;
  if (ratio === null)
    return `kernel-sqlite CPU per turn: no ratio (run both bare and kernel-sqlite to get one)`;
  return `kernel-sqlite CPU per turn is ${ratio}× the bare loop (target ≤ ${max}×): ${met ? 'met' : 'NOT met'}`;
}

function round(value: number, digits: number): number {
  const scale = 10 ** digits;
  return Math.round(value * scale) / scale;
}
