// Durations in settings: a positive number of ms, or text such as 30s, 15m or 24h.
import { z } from 'zod';

export function parseDuration(text: string): number {
  const match = /^(\d+)(ms|s|m|h|d)$/.exec(text);
  if (!match) throw new Error(`not a duration: ${text}`);
  const unit = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 }[
    match[2] as 'ms' | 's' | 'm' | 'h' | 'd'
  ];
  return Number(match[1]) * unit;
}

// "0s" is refused like 0 is: a zero timeout or TTL would fail every call instead of meaning "no limit".
export const DurationSchema = z
  .union(
    [
      z.number().int().positive(),
      z.string().regex(/^[1-9]\d*(ms|s|m|h|d)$/, 'a duration such as 30s, 15m or 24h'),
    ],
    { error: 'a duration: milliseconds as a whole number, or text such as 30s, 15m or 24h' },
  )
  .transform((value) => (typeof value === 'number' ? value : parseDuration(value)));
