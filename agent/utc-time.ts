// Times in words people read the same everywhere: cards, replies, the CLI.

/** `2026-01-01 12:15 UTC`: unambiguous in logs, tests and clients that cannot render local dates. */
export function readableUtc(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}
