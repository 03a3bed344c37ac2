// Min and median over a few rounds: the min is the least disturbed run, the median the typical one.

export interface MinMedian {
  min: number;
  median: number;
}

export function minMedian(values: readonly number[]): MinMedian {
  if (values.length === 0) throw new RangeError('minMedian needs at least one value');
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  const median = sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
  return { min: sorted[0]!, median };
}
