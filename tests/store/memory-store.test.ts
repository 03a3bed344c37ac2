// The in-memory Store against the shared contract, with a manual clock for its TTLs.
import { ManualClock } from '../../agent/clock.js';
import { MemoryStore } from '../../agent/store/memory-store.js';
import { runStoreContract } from './store-contract.js';

runStoreContract('memory', async () => {
  const clock = new ManualClock();
  const store = new MemoryStore(clock);
  return { store, clock, cleanup: () => store.close() };
});
