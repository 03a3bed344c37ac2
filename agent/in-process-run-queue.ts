// The RunQueue inside one process: a FIFO of run ids with a concurrency limit, for SQLite and memory stores.
import { errorMessage } from './errors.js';
import type { Logger } from './logger.js';
import { silentLogger } from './logger.js';
import type { QueueStats, QueueStatsSource } from './queue-stats.js';
import type { AdvanceRun, RunQueue } from './run-queue.js';

export class InProcessRunQueue implements RunQueue, QueueStatsSource {
  /** Only this process steps these runs. */
  readonly shared = false;
  private readonly waiting: string[] = [];
  private readonly waitingIds = new Set<string>();
  /** Runs being advanced now: one enqueued again waits until its advance ends, never beside it. */
  private readonly runningIds = new Set<string>();
  private running = 0;
  private advance: AdvanceRun | undefined;
  private concurrency = 1;
  private closed = false;
  private readonly active = new Set<Promise<void>>();
  private idleWaiters: (() => void)[] = [];

  constructor(private readonly logger: Logger = silentLogger) {}

  async enqueue(runId: string): Promise<void> {
    if (this.closed || this.waitingIds.has(runId)) return;
    this.waitingIds.add(runId);
    this.waiting.push(runId);
    this.pump();
  }

  process(advance: AdvanceRun, options: { concurrency: number }): void {
    if (this.advance) throw new Error('This RunQueue already has a worker');
    if (!(options.concurrency >= 1))
      throw new RangeError(`concurrency must be at least 1, got ${options.concurrency}`);
    this.advance = advance;
    this.concurrency = options.concurrency;
    this.pump();
  }

  idle(): Promise<void> {
    if (this.isIdle()) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** Nothing here outlives its process, so nothing stalls: a dead process's runs are found by recovery. */
  async stats(): Promise<QueueStats> {
    return { waiting: this.waiting.length, active: this.running };
  }

  async close(): Promise<void> {
    this.closed = true;
    this.waiting.length = 0;
    this.waitingIds.clear();
    await Promise.allSettled([...this.active]);
    this.notifyIdle();
  }

  private isIdle(): boolean {
    return this.running === 0 && (this.waiting.length === 0 || this.advance === undefined || this.closed);
  }

  private pump(): void {
    const advance = this.advance;
    if (!advance) return;
    while (!this.closed && this.running < this.concurrency) {
      const next = this.waiting.findIndex((waiting) => !this.runningIds.has(waiting));
      if (next === -1) break;
      const [runId] = this.waiting.splice(next, 1) as [string];
      this.waitingIds.delete(runId);
      this.runningIds.add(runId);
      this.running += 1;
      const job: Promise<void> = started(advance, runId)
        .catch((error) =>
          this.logger.error({ runId, err: errorMessage(error) }, 'a run could not be advanced'),
        )
        .finally(() => {
          this.running -= 1;
          this.runningIds.delete(runId);
          this.active.delete(job);
          this.pump();
          this.notifyIdle();
        });
      this.active.add(job);
    }
  }

  private notifyIdle(): void {
    if (!this.isIdle()) return;
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const resolve of waiters) resolve();
  }
}

/** The advance as a promise, even when the handler throws before it returns one. */
function started(advance: AdvanceRun, runId: string): Promise<void> {
  try {
    return advance(runId);
  } catch (error) {
    return Promise.reject(error);
  }
}
