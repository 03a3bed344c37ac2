// Whether the store answered lately, checked on every incoming request without a round trip each time: while it
// answers, it is pinged at most once a second; while it does not, every check pings again (and fails fast).
import type { Clock } from '../../agent/clock.js';

/**
 * Returns a check: undefined when the store answered within `freshMs` (go on at once), otherwise a ping that
 * resolves once it answers or rejects with why not. Concurrent checks share one ping.
 */
export function recentlyReachable(
  ping: () => Promise<void>,
  clock: Clock,
  freshMs = 1_000,
): () => Promise<void> | undefined {
  let answeredAt = Number.NEGATIVE_INFINITY;
  let pinging: Promise<void> | undefined;
  return () => {
    if (clock.now() - answeredAt < freshMs) return undefined;
    pinging ??= ping()
      .then(() => {
        answeredAt = clock.now();
      })
      .finally(() => {
        pinging = undefined;
      });
    return pinging;
  };
}
