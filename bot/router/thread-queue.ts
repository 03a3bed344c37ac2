// Messages that arrive while a thread is busy wait here, in the Store, and run in order when it frees up.
import { z } from 'zod';
import { type Conversation, conversationKey } from '../../agent/conversation.js';
import { PrincipalSchema } from '../../agent/principal.js';
import type { Store } from '../../agent/store/store.js';

export const QueuedTaskSchema = z.object({
  text: z.string(),
  principal: PrincipalSchema,
  eventId: z.string(),
});
export type QueuedTask = z.infer<typeof QueuedTaskSchema>;

const QUEUE_TTL_MS = 24 * 3_600_000;

export class ThreadQueue {
  constructor(private readonly store: Store) {}

  /** Appends a task; returns its position (1 = next). A short claim serializes writers across replicas. */
  async push(conversation: Conversation, task: QueuedTask): Promise<number> {
    return this.locked(conversation, async (key) => {
      const queue = await this.read(key);
      queue.push(task);
      await this.store.set(key, queue, QUEUE_TTL_MS);
      return queue.length;
    });
  }

  async shift(conversation: Conversation): Promise<QueuedTask | undefined> {
    return this.locked(conversation, async (key) => {
      const queue = await this.read(key);
      const next = queue.shift();
      if (next) await this.store.set(key, queue, QUEUE_TTL_MS);
      return next;
    });
  }

  private async read(key: string): Promise<QueuedTask[]> {
    const parsed = z.array(QueuedTaskSchema).safeParse((await this.store.get<unknown>(key)) ?? []);
    return parsed.success ? parsed.data : [];
  }

  private async locked<T>(conversation: Conversation, work: (key: string) => Promise<T>): Promise<T> {
    const key = `thread-queue:${conversationKey(conversation)}`;
    const lock = `${key}:lock`;
    const owner = `${process.pid}:${Math.random()}`;
    for (let attempt = 0; !(await this.store.claim(lock, owner, 5_000)); attempt++) {
      if (attempt > 100) throw new Error('the thread queue is busy');
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    try {
      return await work(key);
    } finally {
      await this.store.release(lock, owner);
    }
  }
}
