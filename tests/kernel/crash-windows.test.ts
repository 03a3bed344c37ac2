// Crashes between two store writes, found by the model-based test: each leaves the store in a state that
// recovery, the expiry sweep or the next click must still bring to an end. Two processes on one SQLite file.
// (A click that died between the approval book's claim and its record was one; with approvals kept in the run and
// decided under its lease, that window is gone, and the model-based test's crashes cover the click.)
import { describe, expect, it } from 'vitest';
import { approvalOfRun } from '../../agent/policy/approval-record.js';
import { storeKeys } from '../../agent/store/store-keys.js';
import { LEASE_MS, QUESTION_TTL_MS, type Replica } from './model/model-world.js';
import { type Step, taskText } from './model/scripted-model.js';
import { sqliteWorlds } from './model/sqlite-world.js';

const newWorld = sqliteWorlds();

/** Two processes; Alice's task runs on the first until it waits for a person (or the process dies). */
async function aliceStarts(steps: Step[], beforeStart: (first: Replica) => void = () => {}) {
  const world = await newWorld();
  const [first, second] = world.replicas as [Replica, Replica];
  beforeStart(first);
  const runId = await first.kernel.start({
    text: taskText(1, steps),
    principal: world.person('alice'),
    conversation: world.conversation(0),
  });
  await world.quiesce();
  return { world, first, second, runId };
}

describe('crash windows', () => {
  it('a run whose process died while saving its question still expires, and frees its thread', async () => {
    const { world, second, runId } = await aliceStarts(['ask'], (first) =>
      // The process dies after saving the run as waiting_for_user, before indexing it as waiting.
      first.life.dieBefore((method, args) => method === 'addToSet' && args[0] === storeKeys.waitingRuns),
    );
    await world.advance(LEASE_MS + 1);
    await second.kernel.recover();
    await world.quiesce();
    expect((await second.kernel.get(runId)).status).toBe('waiting_for_user');
    await world.advance(QUESTION_TTL_MS);
    expect(await second.sweep.sweep()).toBe(1);
    await world.quiesce();
    expect((await second.kernel.get(runId)).status).toBe('expired');
    expect(await world.observer.holder(storeKeys.threadLock(world.conversation(0)))).toBeUndefined();
  });

  it.each([['finished', ['read']]] as const)(
    'a process that dies right after saving a run as %s has freed its thread',
    async (status, steps) => {
      const { world, second } = await aliceStarts([...steps], (first) =>
        first.life.dieAfter(
          (method, args) =>
            method === 'set' &&
            String(args[0]).startsWith('run:') &&
            (args[1] as { status?: string }).status === status,
        ),
      );
      expect(await world.observer.holder(storeKeys.threadLock(world.conversation(0)))).toBeUndefined();
      // The thread's next task starts at once, not after the lock's TTL.
      const next = await second.kernel.start({
        text: taskText(2, []),
        principal: world.person('alice'),
        conversation: world.conversation(0),
      });
      await world.quiesce();
      expect((await second.kernel.get(next)).status).toBe('finished');
    },
  );

  it('a process that dies right after saving a run as waiting_for_user leaves the thread to it: the next task queues behind, and starts once it ends', async () => {
    const { world, second, runId } = await aliceStarts(['ask'], (first) =>
      first.life.dieAfter(
        (method, args) =>
          method === 'set' &&
          String(args[0]).startsWith('run:') &&
          (args[1] as { status?: string }).status === 'waiting_for_user',
      ),
    );
    expect(await world.observer.holder(storeKeys.threadLock(world.conversation(0)))).toBe(runId);
    const next = await second.kernel.start({
      text: taskText(2, []),
      principal: world.person('alice'),
      conversation: world.conversation(0),
    });
    await world.quiesce();
    expect((await second.kernel.get(next)).status).toBe('queued');
    // The dead process's lease on the run lapses; the cancel it put off is carried out, and the thread moves on.
    await second.kernel.cancel(runId, world.person('alice'));
    await world.advance(LEASE_MS + 1);
    await second.kernel.recover();
    await world.quiesce();
    expect((await second.kernel.get(runId)).status).toBe('cancelled');
    expect((await second.kernel.get(next)).status).toBe('finished');
  });

  it('a cancel put off because a dead process held the waiting run is carried out by recovery', async () => {
    const { world, first, second, runId } = await aliceStarts(['restart']);
    const waiting = await first.kernel.get(runId);
    if (waiting.status !== 'waiting_for_approval') throw new Error(`the run is ${waiting.status}`);
    // A stray answer on the first process takes the run's lease, and the process dies holding it.
    first.life.dieAfter((method, args) => method === 'claim' && args[0] === storeKeys.runLease(runId));
    void first.kernel.answer(runId, 'api', world.person('alice'));
    await first.life.died;
    await world.quiesce();
    const cancel = await second.kernel.cancel(runId, world.person('alice'));
    expect(cancel.message).toMatch(/will stop at its next step/);

    // The lease lapses; the run still waits for its approval, and nobody steps a waiting run.
    await world.advance(LEASE_MS + 1);
    await second.kernel.recover();
    await world.quiesce();
    expect((await second.kernel.get(runId)).status).toBe('cancelled');
    const cancelled = await second.kernel.get(runId);
    expect(approvalOfRun(cancelled, waiting.approval.approvalId)?.status).toBe('withdrawn');
    const card = world.chat.ofKind('approval').find((entry) => entry.runId === runId);
    expect(card?.decision?.outcome).toBe('withdrawn');
    expect(world.executions.executions).toEqual([]);
    expect(await world.observer.get(storeKeys.cancelRequest(runId))).toBeUndefined();
  });

  it('a question asked again after another process took the answer is indexed again, and expires', async () => {
    const { world, first, second, runId } = await aliceStarts(['ask', 'ask']);
    expect((await first.kernel.get(runId)).status).toBe('waiting_for_user');
    // The second process takes the answer (the run leaves the waiting index) and dies before stepping it.
    second.life.dieAfter((method, args) => method === 'removeFromSet' && args[0] === storeKeys.waitingRuns);
    void second.kernel.answer(runId, 'api', world.person('alice'));
    await second.life.died;
    await world.quiesce();

    // The first process, which asked the first question, recovers the run and asks the second.
    await world.advance(LEASE_MS + 1);
    await first.kernel.recover();
    await world.quiesce();
    expect((await first.kernel.get(runId)).status).toBe('waiting_for_user');
    expect(await world.observer.members(storeKeys.waitingRuns)).toContain(runId);
    await world.advance(QUESTION_TTL_MS);
    expect(await first.sweep.sweep()).toBe(1);
    expect((await first.kernel.get(runId)).status).toBe('expired');
  });
});
