// Turns a session into the recorded report: each process's raw figures, then min and median per runner and ratios to bare.
import { cpus } from 'node:os';
import type { Measurement } from './measure.js';
import { RSS_SAMPLE_MS } from './measure.js';
import { BASELINE_RUNNER, type RunnerName, SAME_TRANSPORT_RUNNER } from './runners/runner.js';
import { TOOL_STEPS, TURNS_PER_RUN } from './scripted-run.js';
import type { ProcessResult, SessionResult } from './session.js';
import type { BenchSettings } from './settings.js';
import { type MinMedian, minMedian } from './stats.js';

/** Bump when a field changes meaning or moves, so old results files are not misread. */
export const REPORT_FORMAT = 'opsbot-bench-kernel/2';

export const TARGET = {
  runner: 'kernel-sqlite',
  max_ratio: 1.2,
  why: 'issue 16 aims for kernel-sqlite at or under 1.2x the bare loop CPU per turn at steady state',
} as const satisfies { runner: RunnerName; max_ratio: number; why: string };

/** Issue 24's guard, not a goal: the kernel's own CPU per model turn, over the bare loop on the same fetch. */
export const OWN_WORK_GUARD_MS = 0.5;

export const METHOD = [
  'Each (runner, round) pair runs in its own fresh node process (node --import tsx bench/runner-process.ts).',
  'The order of the runners rotates each round (A B C, B C A, C A B).',
  'Each process does its warm-up runs unmeasured, collects garbage, then measures its runs.',
  'cpu_ms_per_turn is that process’s user+system CPU (process.cpuUsage, all its threads) over the measured runs, divided by model turns.',
  'The fake model runs in a separate process for the whole session, so its CPU is not counted.',
  'Summaries are min and median over rounds; cpu_ratio_to_bare.min is min/min and .median is median/median, bare measured in the same session.',
  `peak_rss_mb is the process’s RSS high-water mark from getrusage (warm-up included); window_peak_rss_mb is sampled every ${RSS_SAMPLE_MS} ms during the measured runs.`,
].join(' ');

export interface ProcessFigures {
  runner: RunnerName;
  round: number;
  position: number;
  load_average_1m_before: number;
  warmup_runs: number;
  runs: number;
  model_turns: number;
  cpu_user_ms: number;
  cpu_system_ms: number;
  cpu_ms_per_turn: number;
  cpu_ratio_to_bare_same_round: number | null;
  wall_s: number;
  runs_per_s: number;
  peak_rss_mb: number;
  window_peak_rss_mb: number;
  end_rss_mb: number;
}

export interface RunnerSummary {
  cpu_ms_per_turn: MinMedian;
  cpu_ratio_to_bare: MinMedian | null;
  runs_per_s: MinMedian;
  peak_rss_mb: MinMedian;
}

export interface BenchReport {
  format: typeof REPORT_FORMAT;
  generated_at: string;
  started_at: string;
  duration_s: number;
  node: string;
  machine: { cpus: number; model: string };
  load_average: { at_start: number[]; at_end: number[] };
  method: string;
  settings: {
    quick: boolean;
    rounds: number;
    warmup_runs: number;
    runs: number;
    concurrency: number;
    turns_per_run: number;
    tool_steps_per_run: number;
    runners: RunnerName[];
  };
  summary: Partial<Record<RunnerName, RunnerSummary>>;
  target: typeof TARGET & {
    ratio_min: number | null;
    ratio_median: number | null;
    met_at_median: boolean | null;
    /** kernel-sqlite over bare-transport: the kernel's own work, with the HTTP client the same on both sides. */
    ratio_to_same_transport_min: number | null;
    ratio_to_same_transport_median: number | null;
    /** kernel-sqlite's CPU per turn minus bare-transport's, in ms: the kernel's own work per model turn. */
    own_cpu_ms_per_turn_min: number | null;
    own_cpu_ms_per_turn_median: number | null;
    own_work_guard_ms: number;
  };
  rounds: { round: number; order: RunnerName[]; processes: ProcessFigures[] }[];
}

export interface SessionContext {
  startedAt: Date;
  finishedAt: Date;
  loadAtStart: number[];
  loadAtEnd: number[];
}

export function buildReport(
  settings: BenchSettings,
  session: SessionResult,
  context: SessionContext,
): BenchReport {
  const summary: Partial<Record<RunnerName, RunnerSummary>> = {};
  const bareCpu = cpuPerTurnByRound(session.processes, BASELINE_RUNNER);
  const bareSummary = bareCpu.size > 0 ? minMedian([...bareCpu.values()]) : undefined;
  for (const runner of settings.runners) {
    const mine = session.processes.filter((result) => result.runner === runner);
    if (mine.length === 0) continue;
    const cpu = minMedian(mine.map((result) => cpuPerTurn(result.measurement)));
    summary[runner] = {
      cpu_ms_per_turn: roundBoth(cpu, 3),
      cpu_ratio_to_bare: bareSummary
        ? roundBoth({ min: cpu.min / bareSummary.min, median: cpu.median / bareSummary.median }, 2)
        : null,
      runs_per_s: roundBoth(minMedian(mine.map((result) => runsPerSecond(result.measurement))), 1),
      peak_rss_mb: roundBoth(
        minMedian(mine.map((result) => mebibytes(result.measurement.processPeakRssBytes))),
        1,
      ),
    };
  }
  const targetRatio = summary[TARGET.runner]?.cpu_ratio_to_bare ?? null;
  // The kernel's own work: the same figures against the bare loop on the kernel's own fetch.
  const targetCpu = summary[TARGET.runner]?.cpu_ms_per_turn;
  const transportCpu = summary[SAME_TRANSPORT_RUNNER]?.cpu_ms_per_turn;
  const ownWork =
    targetCpu && transportCpu
      ? roundBoth(
          { min: targetCpu.min / transportCpu.min, median: targetCpu.median / transportCpu.median },
          2,
        )
      : null;
  const ownMs =
    targetCpu && transportCpu
      ? roundBoth(
          { min: targetCpu.min - transportCpu.min, median: targetCpu.median - transportCpu.median },
          3,
        )
      : null;
  const machine = cpus();
  return {
    format: REPORT_FORMAT,
    generated_at: context.finishedAt.toISOString(),
    started_at: context.startedAt.toISOString(),
    duration_s: round((context.finishedAt.getTime() - context.startedAt.getTime()) / 1000, 1),
    node: process.version,
    machine: { cpus: machine.length, model: machine[0]?.model.trim() ?? 'unknown' },
    load_average: {
      at_start: context.loadAtStart.map((v) => round(v, 2)),
      at_end: context.loadAtEnd.map((v) => round(v, 2)),
    },
    method: METHOD,
    settings: {
      quick: settings.quick,
      rounds: settings.rounds,
      warmup_runs: settings.warmup,
      runs: settings.runs,
      concurrency: settings.concurrency,
      turns_per_run: TURNS_PER_RUN,
      tool_steps_per_run: TOOL_STEPS,
      runners: settings.runners,
    },
    summary,
    target: {
      ...TARGET,
      ratio_min: targetRatio?.min ?? null,
      ratio_median: targetRatio?.median ?? null,
      met_at_median: targetRatio ? targetRatio.median <= TARGET.max_ratio : null,
      ratio_to_same_transport_min: ownWork?.min ?? null,
      ratio_to_same_transport_median: ownWork?.median ?? null,
      own_cpu_ms_per_turn_min: ownMs?.min ?? null,
      own_cpu_ms_per_turn_median: ownMs?.median ?? null,
      own_work_guard_ms: OWN_WORK_GUARD_MS,
    },
    rounds: session.orders.map((order, index) => ({
      round: index + 1,
      order,
      processes: session.processes
        .filter((result) => result.round === index + 1)
        .map((result) => processFigures(result, settings.warmup, bareCpu.get(result.round))),
    })),
  };
}

function processFigures(result: ProcessResult, warmup: number, bareCpu: number | undefined): ProcessFigures {
  const m = result.measurement;
  return {
    runner: result.runner,
    round: result.round,
    position: result.position,
    load_average_1m_before: round(result.loadAverage1m, 2),
    warmup_runs: warmup,
    runs: m.runs,
    model_turns: m.modelTurns,
    cpu_user_ms: round(m.cpuUserMs, 1),
    cpu_system_ms: round(m.cpuSystemMs, 1),
    cpu_ms_per_turn: round(cpuPerTurn(m), 3),
    cpu_ratio_to_bare_same_round: bareCpu === undefined ? null : round(cpuPerTurn(m) / bareCpu, 2),
    wall_s: round(m.wallMs / 1000, 3),
    runs_per_s: round(runsPerSecond(m), 1),
    peak_rss_mb: round(mebibytes(m.processPeakRssBytes), 1),
    window_peak_rss_mb: round(mebibytes(m.windowPeakRssBytes), 1),
    end_rss_mb: round(mebibytes(m.endRssBytes), 1),
  };
}

function cpuPerTurnByRound(processes: ProcessResult[], runner: RunnerName): Map<number, number> {
  return new Map(
    processes
      .filter((result) => result.runner === runner)
      .map((result) => [result.round, cpuPerTurn(result.measurement)]),
  );
}

const cpuPerTurn = (m: Measurement) => (m.cpuUserMs + m.cpuSystemMs) / m.modelTurns;
const runsPerSecond = (m: Measurement) => m.runs / (m.wallMs / 1000);
const mebibytes = (bytes: number) => bytes / 2 ** 20;

function roundBoth(figure: MinMedian, digits: number): MinMedian {
  return { min: round(figure.min, digits), median: round(figure.median, digits) };
}

function round(value: number, digits: number): number {
  const scale = 10 ** digits;
  return Math.round(value * scale) / scale;
}
