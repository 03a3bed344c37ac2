// Times on cards: Slack's `<!date^…>` shows each reader their own time zone, with readable UTC as the fallback.

/** `2026-01-01 12:15 UTC`: unambiguous in logs, tests and clients that cannot render Slack dates. */
export function readableUtc(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

/** Slack renders this in the reader's zone; other clients show the UTC fallback after the `|`. */
export function slackDate(ms: number): string {
  return `<!date^${Math.floor(ms / 1000)}^{date_short_pretty} at {time}|${readableUtc(ms)}>`;
}

/** `in 15 min`, `in 2 h`, or `already passed`. */
export function relativeFuture(ms: number, now: number): string {
  const left = ms - now;
  if (left <= 0) return 'already passed';
  if (left < 60_000) return `in ${Math.ceil(left / 1000)} s`;
  if (left < 3_600_000) return `in ${Math.round(left / 60_000)} min`;
  return `in ${Math.round((left / 3_600_000) * 10) / 10} h`;
}
