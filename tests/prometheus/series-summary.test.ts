// A range series made small: stats over every sample, NaN left out of them, and at most 60 evenly spaced points.
import { describe, expect, it } from 'vitest';
import { evenlySpaced, summarizeSeries } from '../../tools/prometheus/series-summary.js';

describe('summarizeSeries', () => {
  it('keeps the first and last sample among at most 60 points, and the stats over all of them', () => {
    const values = Array.from({ length: 601 }, (_, index): [number, string] => [
      1_700_000_000 + index,
      String(index),
    ]);
    const summary = summarizeSeries(values);
    expect(summary).toMatchObject({ samples: 601, min: 0, max: 600, mean: 300, last: 600 });
    expect(summary.points).toHaveLength(60);
    expect(summary.points[0]).toEqual(['2023-11-14T22:13:20.000Z', 0]);
    expect(summary.points.at(-1)).toEqual(['2023-11-14T22:23:20.000Z', 600]);
  });

  it('leaves NaN out of the stats and shows infinities as Prometheus writes them', () => {
    const summary = summarizeSeries([
      [1, '1'],
      [2, 'NaN'],
      [3, '+Inf'],
      [4, '0.333333333'],
    ]);
    expect(summary).toMatchObject({ samples: 4, min: 0.333333, max: '+Inf', mean: '+Inf', last: 0.333333 });
    expect(summary.points.map(([, value]) => value)).toEqual([1, 'NaN', '+Inf', 0.333333]);
  });

  it('has no stats for an empty series', () => {
    expect(summarizeSeries([])).toMatchObject({
      samples: 0,
      min: null,
      max: null,
      mean: null,
      last: null,
      points: [],
    });
  });

  it('spaces indices evenly', () => {
    expect(evenlySpaced(3, 60)).toEqual([0, 1, 2]);
    expect(evenlySpaced(10, 4)).toEqual([0, 3, 6, 9]);
    expect(evenlySpaced(10, 1)).toEqual([9]);
  });
});
