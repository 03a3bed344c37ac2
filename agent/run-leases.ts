// Which process may change a run right now: a claim with a TTL per run, so two replicas never step it at once.
import { CallerError, ErrorCode } from './errors.js';
import type { Store, StoreWrite } from './store/store.js';
import { storeKeys } from './store/store-keys.js';

/** How often a caller waiting for a lease tries again. */
const RETRY_MS = 25;

/** When a lease this process held was last taken, once it may have lapsed: it is never written under again. */
const LOST = Number.NEGATIVE_INFINITY;

export class RunLeases {
  /** Runs this process holds now, with when each lease was last taken or renewed. */
  private readonly held = new Map<string, number>();

  constructor(
    private readonly store: Store,
    /** This process. */
    readonly owner: string,
    /** How long a lease lasts if its holder dies without releasing it. */
    private readonly leaseMs: number,
    private readonly now: () => number = Date.now,
    private readonly sleep: (ms: number) => Promise<void> = (ms) =>
      new Promise((resolve) => setTimeout(resolve, ms)),
  ) {}

  /** Takes the run's lease; false when anyone holds it, this process included (its worker, or a command). */
  async claim(runId: string): Promise<boolean> {
    if (this.held.has(runId)) return false;
    this.held.set(runId, this.now());
    const claimed = await this.take(runId).catch((error) => {
      this.held.delete(runId);
      throw error;
    });
    if (!claimed) this.held.delete(runId);
    return claimed;
  }

  private take(runId: string): Promise<boolean> {
    return this.store.claim(storeKeys.runLease(runId), this.owner, this.leaseMs);
  }

  /** How often a worker renews the leases it holds: a third of the lease, so two missed beats still hold it. */
  get heartbeatMs(): number {
    return this.leaseMs / 3;
  }

  release(runId: string): Promise<boolean> {
    this.held.delete(runId);
    return this.store.release(storeKeys.runLease(runId), this.owner);
  }

  /** The write that releases a held lease, for a save to carry; call `released` once that write is made. */
  releaseWrite(runId: string): StoreWrite {
    return { kind: 'release', key: storeKeys.runLease(runId), owner: this.owner };
  }

  /** A write from `releaseWrite` was made: this process no longer holds the run. */
  released(runId: string): void {
    this.held.delete(runId);
  }

  /** Extends a held lease once a third of it has passed, so a long run is never taken over while it works. */
  async renew(runId: string): Promise<boolean> {
    const since = this.held.get(runId);
    if (since === undefined || this.now() - since < this.leaseMs / 3) return false;
    await this.refresh(runId, since);
    return true;
  }

  /**
   * Whether this process may still write the run. False once its lease may have lapsed: another process may
   * have taken the run over, changed it (cancelled it) and let go since. Asks the Store only once a third of
   * the lease has passed, and renews it then.
   */
  async stillHeld(runId: string): Promise<boolean> {
    return this.heldFresh(runId) ?? this.refresh(runId, this.held.get(runId)!);
  }

  /**
   * `stillHeld` answered without the Store, when it can be: true or false when it needs no renewal, undefined
   * when a third of the lease has passed (then call `stillHeld`). Spares each transition a wait.
   */
  heldFresh(runId: string): boolean | undefined {
    const since = this.held.get(runId);
    if (since === undefined) return false;
    return this.now() - since < this.leaseMs / 3 ? true : undefined;
  }

  /** Takes the lease again, unless it may have lapsed since it was last taken; a lease lost stays lost. */
  private async refresh(runId: string, since: number): Promise<boolean> {
    if (this.now() - since < this.leaseMs) {
      this.held.set(runId, this.now());
      if (await this.take(runId)) return true;
    }
    this.held.set(runId, LOST);
    return false;
  }

  /** True while this process holds the run (stepping it, or settling an answer or a click). */
  heldHere(runId: string): boolean {
    return this.held.has(runId);
  }

  /** True when another live process holds the run. */
  async heldElsewhere(runId: string): Promise<boolean> {
    const holder = await this.store.holder(storeKeys.runLease(runId));
    return holder !== undefined && holder !== this.owner;
  }

  /**
   * Runs `work` under the run's lease. A person's answer or click waits briefly for a step in progress to
   * end (waitMs), and otherwise is told to try again: nothing is half-applied.
   */
  async hold<T>(runId: string, work: () => Promise<T>, options: { waitMs?: number } = {}): Promise<T> {
    if (!(await this.claimWithin(runId, options.waitMs ?? 0))) {
      throw new CallerError(
        ErrorCode.RunBusy,
        `Run ${runId} is busy in another step; try again in a moment.`,
      );
    }
    try {
      return await work();
    } finally {
      await this.release(runId);
    }
  }

  /** Takes the lease, trying again for up to waitMs (counted in tries, so a test's frozen clock cannot hang it). */
  async claimWithin(runId: string, waitMs: number): Promise<boolean> {
    for (let tries = Math.ceil(waitMs / RETRY_MS); ; tries--) {
      if (await this.claim(runId)) return true;
      if (tries <= 0) return false;
      await this.sleep(RETRY_MS);
    }
  }
}
