// The sweep bench's arithmetic and flags: per-process medians, min and median over rounds, ratios to the index
// pass on the same backend, and settings problems. No timings.
import { describe, expect, it } from 'vitest';
import type { Configuration, SweepMeasurement } from '../../bench/sweep/sweep-job.js';
import { formatSweepTable, roundOf, summarize } from '../../bench/sweep/sweep-report.js';
import { readSweepSettings } from '../../bench/sweep/sweep-settings.js';

function measured(configuration: Configuration, passMs: number[]): SweepMeasurement {
  return { configuration, passMs, seedMs: 1000 };
}

describe('sweep bench figures', () => {
  it('takes each process median, then min and median over rounds, and the ratio to the index pass', () => {
    const rounds = [
      roundOf(1, measured('sqlite/index', [3, 2, 9])),
      roundOf(2, measured('sqlite/index', [4, 4, 4])),
      roundOf(3, measured('sqlite/index', [5, 1, 6])),
      roundOf(1, measured('sqlite/old-first', [300, 200, 250])),
      roundOf(2, measured('sqlite/old-first', [200])),
      roundOf(3, measured('sqlite/old-first', [400])),
    ];
    expect(rounds.map((round) => round.passMedianMs)).toEqual([3, 4, 5, 250, 200, 400]);
    const summaries = summarize(rounds, ['sqlite/index', 'sqlite/old-first']);
    expect(summaries).toEqual([
      { configuration: 'sqlite/index', passMs: { min: 3, median: 4 }, ratioToIndex: { min: 1, median: 1 } },
      {
        configuration: 'sqlite/old-first',
        passMs: { min: 200, median: 250 },
        ratioToIndex: { min: 200 / 3, median: 250 / 4 },
      },
    ]);
    const table = formatSweepTable(summaries, 20);
    expect(table).toContain('3.00 / 4.00');
    expect(table).toContain('67× / 63×');
    expect(table).not.toContain('redis');
  });

  it('gives no ratio where the index pass was not measured on that backend', () => {
    const summaries = summarize([roundOf(1, measured('redis/old-later', [30]))], ['redis/old-later']);
    expect(summaries[0]!.ratioToIndex).toBeNull();
  });
});

describe('sweep bench flags', () => {
  it('reads numbers and configurations, and names what is wrong', () => {
    const settings = readSweepSettings(['--rounds', '5', '--only', 'redis/index,sqlite/index', '--no-write']);
    expect(settings).toMatchObject({
      rounds: 5,
      waiting: 10_000,
      configurations: ['redis/index', 'sqlite/index'],
      resultsPath: null,
    });
    expect(readSweepSettings(['--rounds', '0'])).toEqual({
      problem: '--rounds must be a whole number of at least 1, not "0"',
    });
    expect(readSweepSettings(['--only', 'mysql/index'])).toEqual({
      problem: 'unknown configuration mysql/index',
    });
    expect(readSweepSettings(['--passes'])).toEqual({ problem: '--passes needs a value' });
    expect(readSweepSettings(['--help'])).toBe('help');
  });
});
