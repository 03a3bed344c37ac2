// A query's values checked against a range: which series are below `min` or above `max`, and the verdict.
import { seriesName, shownNumber } from './prometheus-api.js';

export interface Threshold {
  min?: number;
  max?: number;
  /** What an empty result means for the check. */
  ifEmpty: 'pass' | 'fail';
}

export interface CheckedSeries {
  labels: Record<string, string>;
  value: number;
}

export interface ThresholdVerdict {
  ok: boolean;
  /** One sentence for the summary. */
  sentence: string;
  /** The series outside the range (at most 20), for the result's data. */
  out_of_range: {
    series: string;
    value: number | string;
    problem: 'below_min' | 'above_max' | 'not_a_number';
  }[];
  out_of_range_count: number;
}

function rangeText(threshold: Threshold): string {
  if (threshold.min !== undefined && threshold.max !== undefined) {
    return `between ${threshold.min} and ${threshold.max}`;
  }
  return threshold.min !== undefined ? `at least ${threshold.min}` : `at most ${threshold.max}`;
}

function problemOf(
  value: number,
  threshold: Threshold,
): ThresholdVerdict['out_of_range'][number]['problem'] | null {
  if (Number.isNaN(value)) return 'not_a_number';
  if (threshold.min !== undefined && value < threshold.min) return 'below_min';
  if (threshold.max !== undefined && value > threshold.max) return 'above_max';
  return null;
}

const PROBLEM_WORDS = {
  below_min: 'below the minimum',
  above_max: 'above the maximum',
  not_a_number: 'not a number',
};

export function checkThreshold(series: CheckedSeries[], threshold: Threshold): ThresholdVerdict {
  const wanted = rangeText(threshold);
  if (series.length === 0) {
    return {
      ok: threshold.ifEmpty === 'pass',
      sentence:
        threshold.ifEmpty === 'pass'
          ? `No series matched, which passes (if_empty: pass); values must be ${wanted}.`
          : `No series matched, so nothing could be checked against ${wanted} (if_empty: fail).`,
      out_of_range: [],
      out_of_range_count: 0,
    };
  }
  const outside = series.flatMap((item) => {
    const problem = problemOf(item.value, threshold);
    return problem ? [{ series: seriesName(item.labels), value: shownNumber(item.value), problem }] : [];
  });
  if (outside.length === 0) {
    return {
      ok: true,
      sentence: `All ${series.length} series are ${wanted}.`,
      out_of_range: [],
      out_of_range_count: 0,
    };
  }
  const first = outside[0]!;
  const more = outside.length > 1 ? ` (${outside.length} of ${series.length} series are outside)` : '';
  return {
    ok: false,
    sentence: `${first.series} = ${first.value} is ${PROBLEM_WORDS[first.problem]}: values must be ${wanted}${more}.`,
    out_of_range: outside.slice(0, 20),
    out_of_range_count: outside.length,
  };
}
