// The bench's method, the parts that are arithmetic: rotation, min and median, ratios and settings. No timings.
import { describe, expect, it } from 'vitest';
import type { Measurement } from '../../bench/measure.js';
import { buildReport } from '../../bench/report.js';
import type { RunnerName } from '../../bench/runners/runner.js';
import { roundOrders } from '../../bench/schedule.js';
import type { ProcessResult } from '../../bench/session.js';
import { FULL_WORKLOAD, QUICK_WORKLOAD, readSettings } from '../../bench/settings.js';
import { minMedian } from '../../bench/stats.js';

const RESULTS = '/results/kernel.json';

describe('roundOrders', () => {
  it('rotates the order one place each round', () => {
    expect(roundOrders(['A', 'B', 'C'], 3)).toEqual([
      ['A', 'B', 'C'],
      ['B', 'C', 'A'],
      ['C', 'A', 'B'],
    ]);
  });

  it('puts each runner in each place once over as many rounds as runners', () => {
    const orders = roundOrders(['A', 'B', 'C'], 3);
    for (let place = 0; place < 3; place += 1) {
      expect(new Set(orders.map((order) => order[place])).size).toBe(3);
    }
  });

  it('starts the cycle again after a full turn', () => {
    expect(roundOrders(['A', 'B', 'C'], 5)).toEqual([
      ['A', 'B', 'C'],
      ['B', 'C', 'A'],
      ['C', 'A', 'B'],
      ['A', 'B', 'C'],
      ['B', 'C', 'A'],
    ]);
  });

  it('handles one runner and one round', () => {
    expect(roundOrders(['A'], 3)).toEqual([['A'], ['A'], ['A']]);
    expect(roundOrders(['A', 'B'], 1)).toEqual([['A', 'B']]);
  });
});

describe('minMedian', () => {
  it('takes the middle value of an odd count, whatever the order', () => {
    expect(minMedian([3, 1, 2])).toEqual({ min: 1, median: 2 });
    expect(minMedian([1.7, 1.6, 1.9])).toEqual({ min: 1.6, median: 1.7 });
  });

  it('averages the two middle values of an even count', () => {
    expect(minMedian([4, 1, 3, 2])).toEqual({ min: 1, median: 2.5 });
  });

  it('gives one value as both min and median', () => {
    expect(minMedian([5])).toEqual({ min: 5, median: 5 });
  });

  it('refuses no values rather than report NaN', () => {
    expect(() => minMedian([])).toThrow(RangeError);
  });
});

describe('buildReport', () => {
  const cpuPerTurn: Partial<Record<RunnerName, number[]>> = {
    bare: [1.0, 1.2, 1.1],
    'kernel-memory': [1.5, 1.6, 1.8],
    'kernel-sqlite': [1.8, 1.6, 2.2],
  };
  const orders = roundOrders(['bare', 'kernel-memory', 'kernel-sqlite'] as RunnerName[], 3);
  const processes: ProcessResult[] = orders.flatMap((order, roundIndex) =>
    order.map((runner, positionIndex) => ({
      round: roundIndex + 1,
      position: positionIndex + 1,
      runner,
      loadAverage1m: 2,
      measurement: measurement(cpuPerTurn[runner]![roundIndex]!),
    })),
  );
  const settings = {
    ...FULL_WORKLOAD,
    quick: false,
    runners: orders[0]!,
    resultsPath: null,
    profileDir: null,
    source: false,
  };
  const report = buildReport(
    settings,
    { orders, processes },
    {
      startedAt: new Date('2026-01-01T00:00:00Z'),
      finishedAt: new Date('2026-01-01T00:03:00Z'),
      loadAtStart: [0.5, 0.4, 0.3],
      loadAtEnd: [2.1, 1.5, 0.8],
    },
  );

  it('summarizes CPU per turn as min and median over rounds', () => {
    expect(report.summary.bare?.cpu_ms_per_turn).toEqual({ min: 1, median: 1.1 });
    expect(report.summary['kernel-sqlite']?.cpu_ms_per_turn).toEqual({ min: 1.6, median: 1.8 });
  });

  it('takes ratios to bare as min over min and median over median', () => {
    expect(report.summary.bare?.cpu_ratio_to_bare).toEqual({ min: 1, median: 1 });
    expect(report.summary['kernel-sqlite']?.cpu_ratio_to_bare).toEqual({ min: 1.6, median: 1.64 });
    expect(report.target).toMatchObject({ ratio_min: 1.6, ratio_median: 1.64, met_at_median: false });
  });

  it('keeps every round raw, in its rotated order, with the ratio to that round’s bare', () => {
    expect(report.rounds.map((round) => round.order)).toEqual(orders);
    const third = report.rounds[2]!.processes;
    expect(third.map((figures) => figures.runner)).toEqual(['kernel-sqlite', 'bare', 'kernel-memory']);
    expect(third[0]).toMatchObject({ cpu_ms_per_turn: 2.2, cpu_ratio_to_bare_same_round: 2, position: 1 });
  });

  it('gives no ratio when bare was not run', () => {
    const kernelOnly = buildReport(
      { ...settings, runners: ['kernel-sqlite'] },
      {
        orders: [['kernel-sqlite']],
        processes: processes.filter((result) => result.runner === 'kernel-sqlite'),
      },
      { startedAt: new Date(0), finishedAt: new Date(1000), loadAtStart: [0], loadAtEnd: [0] },
    );
    expect(kernelOnly.summary['kernel-sqlite']?.cpu_ratio_to_bare).toBeNull();
    expect(kernelOnly.target.met_at_median).toBeNull();
  });
});

describe('readSettings', () => {
  it('uses the full workload and writes the results file by default', () => {
    const outcome = readSettings([], {}, RESULTS);
    expect(outcome).toMatchObject({ ok: true, settings: { ...FULL_WORKLOAD, resultsPath: RESULTS } });
  });

  it('uses the quick workload for --quick and leaves the results file alone', () => {
    const outcome = readSettings(['--quick'], {}, RESULTS);
    expect(outcome).toMatchObject({
      ok: true,
      settings: { ...QUICK_WORKLOAD, quick: true, resultsPath: null },
    });
  });

  it('lets the environment override the preset, and a flag override the environment', () => {
    const outcome = readSettings(
      ['--quick', '--rounds', '5'],
      { BENCH_ROUNDS: '4', BENCH_WARMUP: '0' },
      RESULTS,
    );
    expect(outcome).toMatchObject({
      ok: true,
      settings: { rounds: 5, warmup: 0, runs: QUICK_WORKLOAD.runs },
    });
  });

  it('lists every problem at once and says where each value came from', () => {
    const outcome = readSettings(
      ['--runs', '0', '--only', 'bare,kernel-redis'],
      { BENCH_ROUNDS: 'three' },
      RESULTS,
    );
    expect(outcome.ok).toBe(false);
    expect(outcome.ok === false && outcome.problems).toEqual([
      'environment variable BENCH_ROUNDS must be a whole number ≥ 1; got "three"',
      '--runs must be a whole number ≥ 1; got "0"',
      '--only: unknown runner "kernel-redis"; choose from bare, bare-transport, kernel-memory, kernel-sqlite, agents-sdk',
    ]);
  });

  it('lists an unknown flag, a missing value and a stray argument with the other problems', () => {
    const outcome = readSettings(['--round', '3', '--runs', 'x', '--out'], {}, RESULTS);
    expect(outcome.ok === false && outcome.problems).toEqual([
      'unknown flag --round',
      '--out needs a value',
      'unexpected argument "3"',
      '--runs must be a whole number ≥ 1; got "x"',
    ]);
  });

  it('writes a quick session only where --out says', () => {
    const outcome = readSettings(['--quick', '--out', '/tmp/quick.json'], {}, RESULTS);
    expect(outcome).toMatchObject({ ok: true, settings: { resultsPath: '/tmp/quick.json' } });
  });
});

function measurement(cpuMsPerTurn: number): Measurement {
  const modelTurns = 4000;
  return {
    runs: 1000,
    modelTurns,
    cpuUserMs: cpuMsPerTurn * modelTurns,
    cpuSystemMs: 0,
    wallMs: 5000,
    processPeakRssBytes: 200 * 2 ** 20,
    windowPeakRssBytes: 190 * 2 ** 20,
    endRssBytes: 180 * 2 ** 20,
  };
}
