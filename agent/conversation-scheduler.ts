// One active run per thread, across every replica: a run takes the thread's lock or waits in the thread's list,
// and whichever process ends a run moves the thread on to the next one.
import { z } from 'zod';
import type { Conversation } from './conversation.js';
import { ErrorCode, SystemError } from './errors.js';
import type { RunQueue } from './run-queue.js';
import type { Store, StoreWrite } from './store/store.js';
import { storeKeys } from './store/store-keys.js';

export interface ConversationSchedulerOptions {
  store: Store;
  queue: RunQueue;
  /** Whether a run waiting for the thread still wants to start (it may have been cancelled meanwhile). */
  stillQueued(runId: string): Promise<boolean>;
  /** Long enough to outlast a run's work, so a crashed holder frees the thread eventually. */
  lockTtlMs: number;
  sleep?: (ms: number) => Promise<void>;
}

const WAITING_TTL_MS = 24 * 3_600_000;
/** Built once: a zod schema costs more to build than to check a short list with. */
const WaitingList = z.array(z.string());
const LIST_LOCK_MS = 5_000;

export class ConversationScheduler {
  private readonly sleep: (ms: number) => Promise<void>;

  constructor(private readonly options: ConversationSchedulerOptions) {
    this.sleep = options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
  }

  /**
   * Starts the run now if its thread is free (0), or puts it in line and returns its position (1 = next).
   * `beforeQueue` runs once the thread is the run's and before any worker can take it, so what it saves is not
   * raced by the worker's first step.
   */
  async admit(conversation: Conversation, runId: string, beforeQueue?: () => Promise<void>): Promise<number> {
    if (await this.take(conversation, runId)) {
      await beforeQueue?.();
      await this.options.queue.enqueue(runId);
      return 0;
    }
    const position = await this.withList(conversation, async (list) => {
      // Recovery admits a queued run again: it keeps its one place in line.
      if (!list.includes(runId)) {
        list.push(runId);
        await this.writeList(conversation, list);
      }
      // The holder may have let go between the first try and the push: try once more, now that we are listed.
      if (!(await this.take(conversation, runId))) return list.indexOf(runId) + 1;
      list.splice(list.indexOf(runId), 1);
      await this.writeList(conversation, list);
      return 0;
    });
    if (position === 0) {
      await beforeQueue?.();
      await this.options.queue.enqueue(runId);
    }
    return position;
  }

  /** True when this run holds its thread. */
  async holds(conversation: Conversation, runId: string): Promise<boolean> {
    return (await this.options.store.holder(storeKeys.threadLock(conversation))) === runId;
  }

  /** Frees the thread if this run holds it, and starts the next run waiting there. */
  async release(conversation: Conversation, runId: string): Promise<void> {
    if (!(await this.options.store.release(storeKeys.threadLock(conversation), runId))) return;
    await this.moveOn(conversation, runId);
  }

  /** The write that frees the thread if this run holds it, for a save to carry; then call moveOn. */
  freeing(conversation: Conversation, runId: string): StoreWrite {
    return { kind: 'release', key: storeKeys.threadLock(conversation), owner: runId };
  }

  /**
   * Starts the next run waiting for the thread, once it was freed. Safe to call when the run did not hold the
   * thread after all: the next run then fails to take it and stays first in line.
   */
  async moveOn(conversation: Conversation, runId: string): Promise<void> {
    if ((await this.readList(conversation)).length === 0) return;
    const next = await this.withList(conversation, async (list) => {
      while (list.length > 0) {
        const candidate = list.shift()!;
        // The run letting go never takes the thread back, whatever its last saved status says.
        if (candidate === runId || !(await this.options.stillQueued(candidate))) continue;
        if (await this.take(conversation, candidate)) {
          await this.writeList(conversation, list);
          return candidate;
        }
        // Someone else took the thread meanwhile: the candidate stays first in line.
        list.unshift(candidate);
        break;
      }
      await this.writeList(conversation, list);
      return undefined;
    });
    if (next) await this.options.queue.enqueue(next);
  }

  private take(conversation: Conversation, runId: string): Promise<boolean> {
    return this.options.store.claim(storeKeys.threadLock(conversation), runId, this.options.lockTtlMs);
  }

  private async readList(conversation: Conversation): Promise<string[]> {
    const parsed = WaitingList.safeParse(await this.options.store.get(storeKeys.threadWaiting(conversation)));
    return parsed.success ? parsed.data : [];
  }

  private async writeList(conversation: Conversation, list: string[]): Promise<void> {
    const key = storeKeys.threadWaiting(conversation);
    if (list.length === 0) await this.options.store.delete(key);
    else await this.options.store.set(key, list, WAITING_TTL_MS);
  }

  /** Changes the waiting list under a short lock, so two replicas never overwrite each other's change. */
  private async withList<T>(conversation: Conversation, change: (list: string[]) => Promise<T>): Promise<T> {
    const { store } = this.options;
    const lock = storeKeys.threadWaitingLock(conversation);
    const owner = `${process.pid}:${Math.random().toString(36).slice(2)}`;
    for (let attempt = 0; !(await store.claim(lock, owner, LIST_LOCK_MS)); attempt++) {
      if (attempt >= 200)
        throw new SystemError(ErrorCode.StoreUnavailable, 'The thread queue stayed busy for 2 s');
      await this.sleep(10);
    }
    try {
      return await change(await this.readList(conversation));
    } finally {
      await store.release(lock, owner);
    }
  }
}
