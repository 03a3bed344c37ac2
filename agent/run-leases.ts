// Which process may change a run right now: a claim with a TTL per run, so two replicas never step it at once.
import { CallerError, ErrorCode } from './errors.js';
import type { Run } from './run.js';
import type { RunRepository } from './run-repository.js';
import type { Store } from './store/store.js';

const leaseKey = (runId: string) => `run-lease:${runId}`;

export class RunLeases {
  constructor(
    private readonly store: Store,
    private readonly runs: RunRepository,
    /** This process. */
    readonly owner: string,
    /** How long a lease lasts if its holder dies without releasing it. */
    private readonly leaseMs: number,
  ) {}

  claim(runId: string): Promise<boolean> {
    return this.store.claim(leaseKey(runId), this.owner, this.leaseMs);
  }

  release(runId: string): Promise<boolean> {
    return this.store.release(leaseKey(runId), this.owner);
  }

  /** True when another live process holds the run. */
  async heldElsewhere(runId: string): Promise<boolean> {
    const holder = await this.store.holder(leaseKey(runId));
    return holder !== undefined && holder !== this.owner;
  }

  /** Loads a run under its lease, applies a change, and saves it. */
  async withRun<T>(runId: string, change: (run: Run) => Promise<T>): Promise<T> {
    if (!(await this.claim(runId))) {
      throw new CallerError(
        ErrorCode.RunNotWaiting,
        `Run ${runId} is busy in another step; try again in a moment.`,
      );
    }
    try {
      const run = await this.runs.load(runId);
      const result = await change(run);
      await this.runs.save(run);
      return result;
    } finally {
      await this.release(runId);
    }
  }
}
