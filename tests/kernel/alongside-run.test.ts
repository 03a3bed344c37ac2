// A run `alongside` its thread's active run (a button's one call, such as an alert group's Silence): it starts and
// ends while the active run holds the thread, started or recovered, and its end leaves the thread's lock and line
// to the run holding it. A thread's lock is freed only by its holder.
import { afterEach, describe, expect, it } from 'vitest';
import { ConversationScheduler } from '../../agent/conversation-scheduler.js';
import type { TaskInput } from '../../agent/new-run.js';
import type { PlannedCall } from '../../agent/run.js';
import type { RunQueue } from '../../agent/run-queue.js';
import { MemoryStore } from '../../agent/store/memory-store.js';
import { storeKeys } from '../../agent/store/store-keys.js';
import { text } from '../fakes/openai-server.js';
import { alice, conversation, createHarness, type Harness, type TestRun } from './harness.js';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const check: PlannedCall = {
  id: 'check_1',
  name: 'check_http',
  args: { url: 'https://example.com' },
  rawArguments: '{"url":"https://example.com"}',
};

function beside(): TaskInput {
  return {
    text: 'check_http url=https://example.com (a button)',
    principal: alice,
    conversation,
    engine: 'command',
    plan: { calls: [check] },
    alongside: true,
  };
}

/** A thread whose active run is stuck on the model until `release` is called. */
async function busyThread() {
  harness = await createHarness({ store: 'sqlite' });
  let release!: () => void;
  const answered = new Promise<void>((resolve) => {
    release = resolve;
  });
  harness.fake.respond(async () => {
    await answered;
    return text('All good.');
  });
  const holder = await harness.kernel.start({ text: 'is the api up?', principal: alice, conversation });
  const { fake, store } = harness;
  await poll('the holder asking the model', () => (fake.requestCount > 0 ? true : undefined));
  expect(await store.holder(storeKeys.threadLock(conversation))).toBe(holder);
  return { harness, holder, release };
}

describe('a run alongside its thread', () => {
  it('finishes while the thread is busy, shows no place in line, and leaves the thread to its holder', async () => {
    const { harness, holder, release } = await busyThread();
    const { kernel, store, chat } = harness;
    const button = await kernel.start(beside());
    const ended = (await kernel.settled(button)) as TestRun;
    expect(ended.status).toBe('finished');
    expect(ended.answer).toContain('answered 200');
    expect(ended.alongside).toBe(true);
    expect(ended.events.map((event) => event.type)).not.toContain('thread_busy');
    expect(chat.texts().some((line) => line.includes('is queued (position'))).toBe(false);
    expect(await store.holder(storeKeys.threadLock(conversation))).toBe(holder);

    // A follow-up in the thread still waits for the holder, first in line.
    const followUp = await kernel.start({ text: 'and the worker?', principal: alice, conversation });
    expect((await kernel.get(followUp)).status).toBe('queued');
    expect(await store.get(storeKeys.threadWaiting(conversation))).toEqual([followUp]);
    expect(chat.texts().some((line) => line.includes('is queued (position 1)'))).toBe(true);

    release();
    expect((await kernel.settled(holder)).status).toBe('finished');
    expect((await kernel.settled(followUp)).status).toBe('finished');
    expect(await store.holder(storeKeys.threadLock(conversation))).toBeUndefined();
  });

  it('is handed to the queue by recovery, not put in line behind the holder', async () => {
    const { harness, holder, release } = await busyThread();
    // A gateway saves the run and dies before any worker took it up: recovery finds it queued.
    const gateway = harness.newKernel({ worker: false });
    const button = await gateway.start(beside());
    expect((await harness.kernel.get(button)).status).toBe('queued');
    await harness.kernel.recover();
    expect((await harness.kernel.settled(button)).status).toBe('finished');
    expect(await harness.store.get(storeKeys.threadWaiting(conversation))).toBeUndefined();
    expect(await harness.store.holder(storeKeys.threadLock(conversation))).toBe(holder);
    release();
    expect((await harness.kernel.settled(holder)).status).toBe('finished');
    await gateway.shutdown();
  });
});

describe("a thread's lock", () => {
  it('is freed, and the thread moved on, only by the run holding it', async () => {
    const store = new MemoryStore();
    const enqueued: string[] = [];
    const queue: RunQueue = {
      shared: false,
      enqueue: async (runId) => {
        enqueued.push(runId);
      },
      process: () => {},
      idle: async () => {},
      close: async () => {},
    };
    const scheduler = new ConversationScheduler({
      store,
      queue,
      stillQueued: async () => true,
      lockTtlMs: 60_000,
    });
    expect(await scheduler.admit(conversation, 'run_holder')).toBe(0);
    expect(await scheduler.admit(conversation, 'run_next')).toBe(1);
    await scheduler.release(conversation, 'run_other');
    await store.writeAll([scheduler.freeing(conversation, 'run_other')]);
    expect(await scheduler.holds(conversation, 'run_holder')).toBe(true);
    expect(await store.get(storeKeys.threadWaiting(conversation))).toEqual(['run_next']);
    expect(enqueued).toEqual(['run_holder']);

    await scheduler.release(conversation, 'run_holder');
    expect(await scheduler.holds(conversation, 'run_next')).toBe(true);
    expect(enqueued).toEqual(['run_holder', 'run_next']);
    await store.close();
  });
});

async function poll<T>(what: string, probe: () => T | undefined): Promise<T> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
