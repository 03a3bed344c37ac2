// Waiting for a run that another process steps (a shared queue, as BullMQ is): the waiting process learns the end
// from the Store, looking again with a backoff, and a Store that fails meanwhile does not end the wait.
import { afterEach, describe, expect, it } from 'vitest';
import { InProcessRunQueue } from '../../agent/in-process-run-queue.js';
import type { Run } from '../../agent/run.js';
import type { RunQueue } from '../../agent/run-queue.js';
import { text } from '../fakes/openai-server.js';
import { ManualTimers } from '../manual-timers.js';
import { alice, conversation, createHarness, type Harness } from './harness.js';

let harness: Harness;
afterEach(async () => harness?.close());

const tick = () => new Promise((resolve) => setImmediate(resolve));

/** What a gateway sees of a BullMQ queue: enqueued runs are stepped elsewhere, and nothing here is ever busy. */
function sharedQueue(elsewhere: InProcessRunQueue): RunQueue {
  return {
    shared: true,
    enqueue: (runId) => elsewhere.enqueue(runId),
    process: () => {
      throw new Error('a gateway has no worker');
    },
    idle: async () => undefined,
    close: async () => undefined,
  };
}

describe('settled() when another process steps the run', () => {
  it('resolves from the Store once the run has ended there, and not before', async () => {
    harness = await createHarness({ store: 'sqlite' });
    const elsewhere = new InProcessRunQueue();
    const worker = harness.newKernel({ queue: elsewhere });
    const timers = new ManualTimers();
    const gateway = harness.newKernel({ queue: sharedQueue(elsewhere), worker: false, timers });
    let answer: (() => void) | undefined;
    harness.fake.respond(
      () =>
        new Promise((resolve) => {
          answer = () => resolve(text('All good.'));
        }),
    );

    const runId = await gateway.start({ text: 'how is it', principal: alice, conversation });
    let settled: Run | undefined;
    void gateway.settled(runId).then((run) => {
      settled = run;
    });
    // The worker is waiting for the model: each look at the Store finds the run still going.
    while (!answer) await tick();
    for (let look = 0; look < 4; look += 1) {
      timers.fire();
      for (let i = 0; i < 5; i += 1) await tick();
    }
    expect(settled).toBeUndefined();
    expect(timers.pending.size).toBe(1);

    answer();
    await elsewhere.idle();
    timers.fire();
    while (!settled) await tick();
    expect(settled).toMatchObject({ status: 'finished', answer: expect.stringContaining('All good.') });
    await worker.shutdown();
    await gateway.shutdown();
  });

  it('keeps looking when the Store fails for a while', async () => {
    harness = await createHarness({ store: 'sqlite' });
    const elsewhere = new InProcessRunQueue();
    const worker = harness.newKernel({ queue: elsewhere });
    const timers = new ManualTimers();
    const gateway = harness.newKernel({ queue: sharedQueue(elsewhere), worker: false, timers });
    harness.fake.respond(() => text('Fine.'));
    const runId = await gateway.start({ text: 'status', principal: alice, conversation });
    await elsewhere.idle();

    const load = gateway.runs.load.bind(gateway.runs);
    let failures = 0;
    gateway.runs.load = async (id) => {
      if (failures < 2) {
        failures += 1;
        throw new Error('Redis is restarting');
      }
      return load(id);
    };
    let settled: Run | undefined;
    void gateway.settled(runId).then((run) => {
      settled = run;
    });
    while (!settled) {
      timers.fire();
      for (let i = 0; i < 5; i += 1) await tick();
    }
    expect(failures).toBe(2);
    expect(settled.status).toBe('finished');
    await worker.shutdown();
    await gateway.shutdown();
  });
});
