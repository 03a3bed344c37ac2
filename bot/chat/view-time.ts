// Times on cards, written the same way everywhere; adapters that can show the reader's own zone do so on top.

export { readableUtc } from '../../agent/utc-time.js';

/** `in 15 min`, `in 2 h`, or `already passed`. */
export function relativeFuture(ms: number, now: number): string {
  const left = ms - now;
  if (left <= 0) return 'already passed';
  if (left < 60_000) return `in ${Math.ceil(left / 1000)} s`;
  if (left < 3_600_000) return `in ${Math.round(left / 60_000)} min`;
  return `in ${Math.round((left / 3_600_000) * 10) / 10} h`;
}
