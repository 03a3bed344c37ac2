// One range series made small: min, max, mean and last over every sample, and at most 60 evenly spaced points.
import { isoTime, sampleNumber, shownNumber } from './prometheus-api.js';

export const MAX_POINTS = 60;

export interface SeriesSummary {
  samples: number;
  min: number | string | null;
  max: number | string | null;
  mean: number | string | null;
  last: number | string | null;
  first_at: string | null;
  last_at: string | null;
  /** [time, value] pairs, evenly spaced over the samples, the first and the last always among them. */
  points: [string, number | string][];
}

function rounded(value: number): number | string {
  return shownNumber(Number.isFinite(value) ? Number(value.toPrecision(6)) : value);
}

/** Indices of at most `count` samples out of `total`, evenly spaced, always keeping the first and the last. */
export function evenlySpaced(total: number, count: number): number[] {
  if (total <= count) return Array.from({ length: total }, (_, index) => index);
  if (count === 1) return [total - 1];
  return Array.from({ length: count }, (_, index) => Math.round((index * (total - 1)) / (count - 1)));
}

export function summarizeSeries(values: [number, string][], maxPoints = MAX_POINTS): SeriesSummary {
  const numbers = values.map(([, text]) => sampleNumber(text));
  const usable = numbers.filter((value) => !Number.isNaN(value));
  const sum = usable.reduce((total, value) => total + value, 0);
  const last = values.at(-1);
  return {
    samples: values.length,
    min: usable.length ? rounded(Math.min(...usable)) : null,
    max: usable.length ? rounded(Math.max(...usable)) : null,
    mean: usable.length ? rounded(sum / usable.length) : null,
    last: last ? rounded(sampleNumber(last[1])) : null,
    first_at: values[0] ? isoTime(values[0][0]) : null,
    last_at: last ? isoTime(last[0]) : null,
    points: evenlySpaced(values.length, maxPoints).map((index) => [
      isoTime(values[index]![0]),
      rounded(numbers[index]!),
    ]),
  };
}
