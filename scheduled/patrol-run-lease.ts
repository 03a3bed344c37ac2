// Who is running a patrol across all replicas: a short lease, renewed while the run goes, released when it ends.
import { errorMessage } from '../agent/errors.js';
import type { Logger } from '../agent/logger.js';
import type { Store } from '../agent/store/store.js';
import type { Timers } from '../agent/timers.js';
import { patrolKeys } from './patrol-keys.js';

/**
 * Short, so a replica that dies mid-run blocks its patrol for at most this long; renewed every third of it. Unlike
 * a slot claim, this guards work, so it is released (compare-and-delete) as soon as the run ends.
 */
export const runLeaseMs = 60_000;

export type LeaseStore = Pick<Store, 'claim' | 'release' | 'holder'>;

export interface HeldLease {
  release(): Promise<void>;
}

export class PatrolRunLeases {
  constructor(
    private readonly store: LeaseStore,
    private readonly owner: string,
    private readonly timers: Timers,
    private readonly logger: Logger,
  ) {}

  /** Takes the patrol's lease, or names the replica that holds it. */
  async take(name: string): Promise<HeldLease | { heldBy: string }> {
    const key = patrolKeys.running(name);
    if (!(await this.store.claim(key, this.owner, runLeaseMs))) {
      return { heldBy: (await this.store.holder(key)) ?? 'another replica' };
    }
    let timer: unknown;
    let held = true;
    const renew = () => {
      timer = this.timers.setTimeout(async () => {
        if (!held) return;
        try {
          if (!(await this.store.claim(key, this.owner, runLeaseMs)))
            this.logger.warn({ patrol: name }, 'lost the patrol run lease: another replica may start a run');
        } catch (error) {
          this.logger.warn(
            { patrol: name, error: errorMessage(error) },
            'could not renew the patrol run lease',
          );
        }
        if (held) renew();
      }, runLeaseMs / 3);
    };
    renew();
    return {
      release: async () => {
        held = false;
        this.timers.clearTimeout(timer);
        try {
          await this.store.release(key, this.owner);
        } catch (error) {
          // It lapses on its own within runLeaseMs.
          this.logger.warn(
            { patrol: name, error: errorMessage(error) },
            'could not release the patrol run lease',
          );
        }
      },
    };
  }
}

export function isHeld(lease: HeldLease | { heldBy: string }): lease is HeldLease {
  return 'release' in lease;
}
