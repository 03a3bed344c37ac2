// The sweep bench's figures: per process the median of its passes, then min and median over rounds, with the
// old sweep's figures beside the index's and their ratio.
import { type MinMedian, minMedian } from '../stats.js';
import {
  BACKENDS,
  type Configuration,
  METHODS,
  type SweepMeasurement,
  splitConfiguration,
} from './sweep-job.js';

export interface SweepRound {
  round: number;
  measurement: SweepMeasurement;
  /** The median of this process's measured passes: the round's figure. */
  passMedianMs: number;
}

export interface SweepSummary {
  configuration: Configuration;
  /** Of the rounds' figures (each a process's median pass). */
  passMs: MinMedian;
  /** This configuration over the index pass on the same backend, min/min and median/median. */
  ratioToIndex: MinMedian | null;
}

export function roundOf(round: number, measurement: SweepMeasurement): SweepRound {
  return { round, measurement, passMedianMs: minMedian(measurement.passMs).median };
}

export function formatRoundLine(result: SweepRound): string {
  const { min } = minMedian(result.measurement.passMs);
  return `round ${result.round} ${result.measurement.configuration.padEnd(17)} pass median ${ms(result.passMedianMs)}, min ${ms(min)} over ${result.measurement.passMs.length} passes (writing the runs took ${(result.measurement.seedMs / 1000).toFixed(1)} s)`;
}

export function summarize(
  rounds: readonly SweepRound[],
  configurations: readonly Configuration[],
): SweepSummary[] {
  const figures = new Map<Configuration, MinMedian>();
  for (const configuration of configurations) {
    const values = rounds
      .filter((r) => r.measurement.configuration === configuration)
      .map((r) => r.passMedianMs);
    if (values.length > 0) figures.set(configuration, minMedian(values));
  }
  return [...figures].map(([configuration, passMs]) => {
    const index = figures.get(`${splitConfiguration(configuration).backend}/index`);
    const ratioToIndex = index ? { min: passMs.min / index.min, median: passMs.median / index.median } : null;
    return { configuration, passMs, ratioToIndex };
  });
}

/** One row per backend: the index pass, then each old pass with its ratio to the index pass. */
export function formatSweepTable(summaries: readonly SweepSummary[], goalMs: number): string {
  const byName = new Map(summaries.map((summary) => [summary.configuration, summary]));
  const header = [
    'backend',
    ...METHODS.map((method) => `${method} ms (min / median)`),
    `ratio ${METHODS[1]}`,
    `ratio ${METHODS[2]}`,
    `index ≤ ${goalMs} ms`,
  ];
  const rows = BACKENDS.flatMap((backend) => {
    const cells = METHODS.map((method) => byName.get(`${backend}/${method}`));
    if (cells.every((cell) => cell === undefined)) return [];
    const figure = (cell: SweepSummary | undefined) =>
      cell ? `${ms(cell.passMs.min)} / ${ms(cell.passMs.median)}` : '—';
    const ratio = (cell: SweepSummary | undefined) =>
      cell?.ratioToIndex ? `${times(cell.ratioToIndex.min)} / ${times(cell.ratioToIndex.median)}` : '—';
    const index = cells[0];
    const goal = index ? (index.passMs.median <= goalMs ? 'yes' : 'NO') : '—';
    return [[backend, ...cells.map(figure), ratio(cells[1]), ratio(cells[2]), goal]];
  });
  const table = [header, ...rows];
  const widths = header.map((_, column) => Math.max(...table.map((row) => row[column]!.length)));
  return table.map((row) => row.map((cell, column) => cell.padEnd(widths[column]!)).join('  ')).join('\n');
}

function ms(value: number): string {
  return `${value < 10 ? value.toFixed(2) : value.toFixed(1)}`;
}

function times(value: number): string {
  return `${value < 10 ? value.toFixed(1) : value.toFixed(0)}×`;
}
