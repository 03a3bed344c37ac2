// What a RunQueue holds right now, for /metrics: asked on every scrape, so it must be cheap to answer.
import type { RunQueue } from './run-queue.js';

export interface QueueStats {
  /** Runs waiting for a worker. */
  waiting: number;
  /** Runs a worker is advancing now. */
  active: number;
  /** Jobs of a worker that died, handed back by the queue; absent where a queue cannot tell (in-process). */
  stalled?: number;
}

/** A queue that can say what it holds. The in-process queue does; the BullMQ queue counts its job states. */
export interface QueueStatsSource {
  stats(): Promise<QueueStats>;
}

export function hasQueueStats(queue: RunQueue): queue is RunQueue & QueueStatsSource {
  return typeof (queue as Partial<QueueStatsSource>).stats === 'function';
}
