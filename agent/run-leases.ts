// Which process may change a run right now: a claim with a TTL per run, so two replicas never step it at once.
import { CallerError, ErrorCode } from './errors.js';
import type { Run } from './run.js';
import type { RunRepository } from './run-repository.js';
import type { Store } from './store/store.js';

const leaseKey = (runId: string) => `run-lease:${runId}`;

export class RunLeases {
  /** Runs this process holds now, with when each lease was last taken or renewed. */
  private readonly held = new Map<string, number>();

  constructor(
    private readonly store: Store,
    private readonly runs: RunRepository,
    /** This process. */
    readonly owner: string,
    /** How long a lease lasts if its holder dies without releasing it. */
    private readonly leaseMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  async claim(runId: string): Promise<boolean> {
    const claimed = await this.store.claim(leaseKey(runId), this.owner, this.leaseMs);
    if (claimed) this.held.set(runId, this.now());
    return claimed;
  }

  release(runId: string): Promise<boolean> {
    this.held.delete(runId);
    return this.store.release(leaseKey(runId), this.owner);
  }

  /** Extends a held lease once a third of it has passed, so a long run is never taken over while it works. */
  async renew(runId: string): Promise<void> {
    const since = this.held.get(runId);
    if (since === undefined || this.now() - since < this.leaseMs / 3) return;
    await this.claim(runId);
  }

  /** True while this process holds the run (stepping it, or settling an answer or a click). */
  heldHere(runId: string): boolean {
    return this.held.has(runId);
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
