// One active run per thread: a claim on the conversation, held by the run id, shared by every replica.
import { type Conversation, conversationKey } from '../conversation.js';
import type { Store } from '../store/store.js';

const lockKey = (conversation: Conversation) => `thread:${conversationKey(conversation)}`;

export class ThreadLock {
  constructor(
    private readonly store: Store,
    /** Long enough to outlast a run's wall-time budget, so a crashed holder frees the thread eventually. */
    private readonly ttlMs: number,
  ) {}

  /** True when this run now holds the thread; the holder acquiring again refreshes its lease. */
  acquire(conversation: Conversation, runId: string, ttlMs = this.ttlMs): Promise<boolean> {
    return this.store.claim(lockKey(conversation), runId, ttlMs);
  }

  /** Frees the thread only if this run still holds it, so a late release cannot free someone else's lock. */
  release(conversation: Conversation, runId: string): Promise<boolean> {
    return this.store.release(lockKey(conversation), runId);
  }

  /** The run id holding the thread, if any. */
  holder(conversation: Conversation): Promise<string | undefined> {
    return this.store.holder(lockKey(conversation));
  }
}
