// How long a crashed MCP server waits before it is started again: 1 s, doubling, at most 60 s.

export const FIRST_RESTART_DELAY_MS = 1_000;
export const MAX_RESTART_DELAY_MS = 60_000;

/** The wait before the next start after `failures` starts in a row that did not last (0 for the first crash). */
export function restartDelayMs(failures: number): number {
  return Math.min(FIRST_RESTART_DELAY_MS * 2 ** Math.max(0, failures), MAX_RESTART_DELAY_MS);
}

/**
 * A server that stayed up this long before it went down starts again from the first delay: a crash a day
 * should not wait a minute, but one that dies seconds after each start keeps backing off.
 */
export const STABLE_UP_MS = MAX_RESTART_DELAY_MS;
