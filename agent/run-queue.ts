// The RunQueue: between the chat side and the workers. It carries only "advance this run now", never state:
// the Store is the source of truth. In-process for SQLite and memory stores; BullMQ on Redis.

export type AdvanceRun = (runId: string) => Promise<void>;

export interface RunQueue {
  /**
   * Whether other processes step this queue's runs (BullMQ): then a run may be stepped anywhere, and its end is
   * learnt from the Store rather than from this process's worker.
   */
  readonly shared: boolean;
  /**
   * Asks a worker to advance the run. A job for the same run that has not started yet is not added twice; a run
   * enqueued while it is being advanced is advanced again once that advance ends, never beside it.
   */
  enqueue(runId: string): Promise<void>;
  /** Starts handing jobs to `advance`, at most `concurrency` at once. Called once, by the worker. */
  process(advance: AdvanceRun, options: { concurrency: number }): void;
  /** Resolves once no job waits or runs here. */
  idle(): Promise<void>;
  /** Stops handing out jobs and waits for the ones running. Jobs left waiting are dropped: recovery finds them. */
  close(): Promise<void>;
}
