// Puts the runs that were already waiting before the wait-expiry index existed into it, once per deployment.
import { waitingUntil } from './run.js';
import type { RunRepository } from './run-repository.js';
import type { Store, StoreWrite } from './store/store.js';
import { storeKeys } from './store/store-keys.js';

/** Index writes per batch: one transaction each on SQLite, small enough not to hold its lock for long. */
const BATCH = 500;

/**
 * Reads the waiting set once and indexes each run by when its wait ends, then sets a marker so no process does
 * it again. Two processes doing it at once write the same entries. An entry for a run that stopped waiting
 * meanwhile is stale, and the sweep removes it when it comes due. Returns how many runs it indexed.
 */
export async function backfillWaitExpiry(
  store: Store,
  runs: Pick<RunRepository, 'waitingRunIds' | 'find'>,
): Promise<number> {
  if ((await store.get(storeKeys.waitExpiryBackfilled)) !== undefined) return 0;
  let writes: StoreWrite[] = [];
  let indexed = 0;
  for (const runId of await runs.waitingRunIds()) {
    // A record that no longer loads is left to recovery, as the old sweep left it.
    const run = await runs.find(runId).catch(() => undefined);
    const until = run ? waitingUntil(run) : undefined;
    if (until === undefined) continue;
    writes.push({ kind: 'addToIndex', index: storeKeys.waitExpiry, member: runId, at: until });
    indexed += 1;
    if (writes.length >= BATCH) {
      await store.writeAll(writes);
      writes = [];
    }
  }
  writes.push({ kind: 'set', key: storeKeys.waitExpiryBackfilled, value: { indexed } });
  await store.writeAll(writes);
  return indexed;
}
