// Whether the store answered lately, checked on every incoming request without a round trip each time: while it
// answers, it is pinged at most once a second; while it does not, every check pings again (and fails fast).
// /readyz's store check goes through `pingStore` too: a store seen down there is pinged again by the next
// request's check, instead of being trusted for the rest of its second.
import type { Clock } from '../../agent/clock.js';
import type { Store } from '../../agent/store/store.js';

type Pingable = Pick<Store, 'ping'>;

interface Reachability {
  answeredAt: number;
  pinging: Promise<void> | undefined;
}

const reachabilityOf = new WeakMap<Pingable, Reachability>();

function stateOf(store: Pingable): Reachability {
  let state = reachabilityOf.get(store);
  if (state === undefined) {
    state = { answeredAt: Number.NEGATIVE_INFINITY, pinging: undefined };
    reachabilityOf.set(store, state);
  }
  return state;
}

/** Pings the store; a failed ping makes every `recentlyReachable` check of this store ping again. */
export async function pingStore(store: Pingable): Promise<void> {
  try {
    await store.ping();
  } catch (error) {
    stateOf(store).answeredAt = Number.NEGATIVE_INFINITY;
    throw error;
  }
}

/**
 * Returns a check: undefined when the store answered within `freshMs` (go on at once), otherwise a ping that
 * resolves once it answers or rejects with why not. Concurrent checks share one ping.
 */
export function recentlyReachable(
  store: Pingable,
  clock: Clock,
  freshMs = 1_000,
): () => Promise<void> | undefined {
  const state = stateOf(store);
  return () => {
    if (clock.now() - state.answeredAt < freshMs) return undefined;
    state.pinging ??= pingStore(store)
      .then(() => {
        state.answeredAt = clock.now();
      })
      .finally(() => {
        state.pinging = undefined;
      });
    return state.pinging;
  };
}
