// A thread's lock and line, under recovery: found by the model-based test. Two processes on one SQLite file.
import { describe, expect, it } from 'vitest';
import { storeKeys } from '../../agent/store/store-keys.js';
import { APPROVAL_TTL_MS, LEASE_MS, type Replica } from './model/model-world.js';
import { taskText } from './model/scripted-model.js';
import { sqliteWorlds } from './model/sqlite-world.js';

const newWorld = sqliteWorlds();

describe('a thread under recovery', () => {
  it('keeps a queued run in line once when recovery admits it again, and frees the thread after it', async () => {
    const world = await newWorld();
    const [first, second] = world.replicas as [Replica, Replica];
    const thread = world.conversation(0);
    const start = (task: number) =>
      first.kernel.start({
        text: taskText(task, ['restart']),
        principal: world!.person('alice'),
        conversation: thread,
      });
    const holder = await start(1);
    await world.quiesce();
    const queued = await start(2);
    await world.quiesce();
    expect((await first.kernel.get(holder)).status).toBe('waiting_for_approval');
    expect((await first.kernel.get(queued)).status).toBe('queued');

    // The recovery sweep runs in every process, again and again, while the run waits in line.
    await first.kernel.recover();
    await second.kernel.recover();
    await world.quiesce();
    expect(await world.observer.get(storeKeys.threadWaiting(thread))).toEqual([queued]);

    // Both approvals expire unanswered; each run goes on without its restart and finishes.
    for (let round = 0; round < 2; round++) {
      await world.advance(APPROVAL_TTL_MS + LEASE_MS);
      await first.sweep.sweep();
      await world.quiesce();
    }
    expect((await first.kernel.get(holder)).status).toBe('finished');
    expect((await first.kernel.get(queued)).status).toBe('finished');
    expect(await world.observer.holder(storeKeys.threadLock(thread))).toBeUndefined();
  });
});
