// A span of milliseconds as a person reads it: in a message ("750 ms", "1.5 s", "2 min"), or as a setting is written
// ("4h", "90m", "1d").

export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 120_000) return `${Math.round(ms / 100) / 10} s`;
  if (ms < 7_200_000) return `${Math.round(ms / 60_000)} min`;
  return `${Math.round(ms / 360_000) / 10} h`;
}

/** As a duration setting is written in opsbot.yaml: 4h, 90m, 1d, the largest unit that divides the length exactly. */
export function durationSetting(ms: number): string {
  for (const [unit, size] of [
    ['d', 86_400_000],
    ['h', 3_600_000],
    ['m', 60_000],
    ['s', 1000],
  ] as const)
    if (ms % size === 0) return `${ms / size}${unit}`;
  return `${ms}ms`;
}
