// The scale bench's summary (min and median over rounds per configuration), its table, and its JSON.
import { type MinMedian, minMedian } from '../stats.js';
import type { Configuration } from './cluster.js';
import type { ConfigurationRound } from './measure-configuration.js';

export interface ConfigurationSummary {
  configuration: Configuration;
  rounds: number;
  /** For runs/s the min is the slowest round; for times the min is the fastest. */
  runsPerS: MinMedian;
  p50Ms: MinMedian;
  p99Ms: MinMedian;
  /** Over all rounds. */
  errors: number;
  /** runs/s over sqlite-all's: min/min and median/median. */
  ratioToSqlite: MinMedian | null;
  redisCommandsPerRun: MinMedian | null;
  redisInputBytesPerRun: MinMedian | null;
  redisOutputBytesPerRun: MinMedian | null;
  /** Median over rounds, per process. */
  cpuMsPerRun: Record<string, number>;
}

const over = (rounds: ConfigurationRound[], pick: (round: ConfigurationRound) => number) =>
  minMedian(rounds.map(pick));

export function summarize(
  all: ConfigurationRound[],
  configurations: Configuration[],
): ConfigurationSummary[] {
  const of = (configuration: Configuration) => all.filter((round) => round.configuration === configuration);
  const sqlite = of('sqlite-all');
  const sqliteRate = sqlite.length > 0 ? over(sqlite, (round) => round.runsPerS) : null;
  return configurations.map((configuration) => {
    const rounds = of(configuration);
    const rate = over(rounds, (round) => round.runsPerS);
    const redis = rounds.every((round) => round.redis !== null);
    const cpuMsPerRun: Record<string, number> = {};
    for (const name of Object.keys(rounds[0]!.cpuMsPerRun))
      cpuMsPerRun[name] = over(rounds, (round) => round.cpuMsPerRun[name]!).median;
    return {
      configuration,
      rounds: rounds.length,
      runsPerS: rate,
      p50Ms: over(rounds, (round) => round.p50Ms),
      p99Ms: over(rounds, (round) => round.p99Ms),
      errors: rounds.reduce((sum, round) => sum + Object.values(round.errors).reduce((a, b) => a + b, 0), 0),
      ratioToSqlite: sqliteRate
        ? { min: rate.min / sqliteRate.min, median: rate.median / sqliteRate.median }
        : null,
      redisCommandsPerRun: redis ? over(rounds, (round) => round.redis!.commands) : null,
      redisInputBytesPerRun: redis ? over(rounds, (round) => round.redis!.inputBytes) : null,
      redisOutputBytesPerRun: redis ? over(rounds, (round) => round.redis!.outputBytes) : null,
      cpuMsPerRun,
    };
  });
}

const fixed = (value: number, digits = 1) => (Number.isFinite(value) ? value.toFixed(digits) : '-');
const pair = (value: MinMedian | null, digits = 1) =>
  value ? `${fixed(value.min, digits)} / ${fixed(value.median, digits)}` : '-';

export function formatRoundLine(round: ConfigurationRound): string {
  const errors = Object.values(round.errors).reduce((a, b) => a + b, 0);
  const redis = round.redis
    ? `; Redis per run: ${fixed(round.redis.commands)} commands, ${fixed(round.redis.inputBytes, 0)} B in, ${fixed(round.redis.outputBytes, 0)} B out`
    : '';
  const cpu = Object.entries(round.cpuMsPerRun)
    .map(([name, ms]) => `${name} ${fixed(ms)}`)
    .join(', ');
  const slack = Object.entries(round.slackCallsPerRun)
    .map(([method, calls]) => `${method} ${fixed(calls, 2)}`)
    .join(', ');
  return `round ${round.round} ${round.configuration}: ${fixed(round.runsPerS)} runs/s, p50 ${fixed(round.p50Ms, 0)} ms, p99 ${fixed(round.p99Ms, 0)} ms, max ${fixed(round.maxMs, 0)} ms, errors ${errors}${errors ? ` ${JSON.stringify(round.errors)}` : ''}${redis}; Slack calls per run: ${slack}; CPU ms per run: ${cpu}; load ${fixed(round.loadAverage1mBefore, 2)}`;
}

export function formatScaleTable(summaries: ConfigurationSummary[]): string {
  const header = [
    'configuration',
    'runs/s',
    'p50 ms',
    'p99 ms',
    'errors',
    'ratio to sqlite',
    'Redis cmds/run',
    'Redis B in/run',
    'Redis B out/run',
  ];
  const rows = summaries.map((summary) => [
    summary.configuration,
    pair(summary.runsPerS),
    pair(summary.p50Ms, 0),
    pair(summary.p99Ms, 0),
    String(summary.errors),
    pair(summary.ratioToSqlite, 2),
    pair(summary.redisCommandsPerRun),
    pair(summary.redisInputBytesPerRun, 0),
    pair(summary.redisOutputBytesPerRun, 0),
  ]);
  const widths = header.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => row[column]!.length)),
  );
  const line = (cells: string[]) =>
    `| ${cells.map((cell, column) => (column === 0 ? cell.padEnd(widths[column]!) : cell.padStart(widths[column]!))).join(' | ')} |`;
  return [
    line(header),
    `|${widths.map((width, column) => (column === 0 ? '-'.repeat(width + 2) : `${'-'.repeat(width + 1)}:`)).join('|')}|`,
    ...rows.map(line),
  ].join('\n');
}
