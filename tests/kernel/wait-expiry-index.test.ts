// The run repository keeps the wait-expiry index in step with each save: a waiting run is indexed at its
// expiry, moved when its expiry changes, and removed when it stops waiting or ends, in the save's own writeAll.
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../agent/clock.js';
import type { Run } from '../../agent/run.js';
import { RunRepository } from '../../agent/run-repository.js';
import { MemoryStore } from '../../agent/store/memory-store.js';
import type { StoreWrite } from '../../agent/store/store.js';
import { storeKeys } from '../../agent/store/store-keys.js';
import { countingStore, type StoreCall } from '../store/counting-store.js';
import { sampleRuns } from './run-machine-samples.js';

const question = sampleRuns.waiting_for_user;
const waitingUntil = (expiresAt: number): Run => ({
  ...question,
  question: { ...question.question, expiresAt },
});

describe('wait-expiry index entries of a saved run', () => {
  it('follows the run through waiting, a new expiry, running, waiting again and its end', async () => {
    const calls: StoreCall[] = [];
    const store = countingStore(new MemoryStore(new ManualClock()), calls);
    const runs = new RunRepository(store);
    const index = () => store.due(storeKeys.waitExpiry, Number.POSITIVE_INFINITY, 10);
    const id = question.id;

    await runs.create(waitingUntil(1000));
    expect(await index()).toEqual([{ member: id, at: 1000 }]);
    await runs.save(waitingUntil(5000));
    expect(await index()).toEqual([{ member: id, at: 5000 }]);
    await runs.save({ ...sampleRuns.running });
    expect(await index()).toEqual([]);
    await runs.save({ ...sampleRuns.waiting_for_approval });
    expect(await index()).toEqual([{ member: id, at: sampleRuns.waiting_for_approval.approval.expiresAt }]);
    await runs.save({ ...sampleRuns.finished });
    expect(await index()).toEqual([]);

    // Every index change went out in the same writeAll as the record it belongs to.
    const indexWrites = calls.filter(
      (call) => call.method === 'addToIndex' || call.method === 'removeFromIndex',
    );
    expect(indexWrites).toEqual([]);
    const batches = calls
      .filter((call) => call.method === 'writeAll')
      .map((call) => call.args[0] as StoreWrite[]);
    for (const batch of batches) expect(batch.some((write) => write.kind === 'set')).toBe(true);
    expect(batches.filter((batch) => batch.some((write) => write.kind.endsWith('Index')))).toHaveLength(5);
  });

  it('writes no index entry again when a waiting run is saved with the same expiry', async () => {
    const calls: StoreCall[] = [];
    const store = countingStore(new MemoryStore(new ManualClock()), calls);
    const runs = new RunRepository(store);
    await runs.create(waitingUntil(1000));
    calls.length = 0;
    await runs.save(waitingUntil(1000));
    expect(calls.map((call) => (call.args[0] as StoreWrite[]).map((write) => write.kind))).toEqual([['set']]);
  });
});
