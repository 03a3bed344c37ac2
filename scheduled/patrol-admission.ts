// The one gate every patrol run passes (scheduled tick, catch-up, run-now): may this replica run it, and for which slot.
import type { Clock } from '../agent/clock.js';
import { errorMessage } from '../agent/errors.js';
import type { Logger } from '../agent/logger.js';
import type { Store } from '../agent/store/store.js';
import type { Timers } from '../agent/timers.js';
import type { PatrolCalendar } from './patrol-calendar.js';
import { patrolKeys } from './patrol-keys.js';
import { type HeldLease, isHeld, PatrolRunLeases } from './patrol-run-lease.js';
import { isReservation, type PatrolReservation, PatrolRuns, type RunningPatrol } from './patrol-runs.js';

/**
 * A slot claim is held for twice the slot's interval, and at least a minute. It is never released: node-cron
 * forgives about a second of lateness, and a replica that wakes late (even by a whole interval) must find the slot
 * taken, not free again because the winner already finished.
 */
export const minimumSlotClaimMs = 60_000;
export function slotClaimMs(intervalMs: number): number {
  return Math.max(2 * intervalMs, minimumSlotClaimMs);
}
/** For a schedule with no next slot within a year, the claim covers two years of it. */
const yearMs = 366 * 86_400_000;

export type PatrolStore = Pick<Store, 'claim' | 'get' | 'set' | 'release' | 'holder'>;

export interface AdmissionOptions {
  store: PatrolStore;
  owner: string;
  clock: Clock;
  logger: Logger;
  timers: Timers;
  isPaused?(name: string): boolean | Promise<boolean>;
}

/** What an admitted run holds while it goes: its place in this process and the patrol's lease across replicas. */
export interface RunHold {
  end(): Promise<void>;
}

/** Why a tick did not run here. */
export type SkipReason = 'overlap' | 'paused' | 'taken' | 'already-handled';

const iso = (ms: number) => new Date(ms).toISOString();

export class PatrolAdmission {
  private readonly runs = new PatrolRuns();
  private readonly leases: PatrolRunLeases;
  /** The latest slot claimed here per patrol: the same owner's claim succeeds again, so this process must remember. */
  private readonly latestHere = new Map<string, number>();

  constructor(private readonly options: AdmissionOptions) {
    this.leases = new PatrolRunLeases(options.store, options.owner, options.timers, options.logger);
  }

  /**
   * A scheduled slot, in order: not handled here already, no run of the patrol going here, not paused, the slot
   * claimed (one replica wins), and no run of the patrol going on another replica.
   */
  async admitSlot(name: string, calendar: PatrolCalendar, slot: number): Promise<RunHold | SkipReason> {
    if (slot <= (this.latestHere.get(name) ?? Number.NEGATIVE_INFINITY)) return 'already-handled';
    const now = this.options.clock.now();
    const reserved = this.runs.reserve(name, { at: slot, manual: false, startedAt: now });
    if (!isReservation(reserved)) {
      this.warnOverlap(name, slot, describeRun(reserved));
      return 'overlap';
    }
    let lease: HeldLease | { heldBy: string };
    try {
      if (await this.options.isPaused?.(name)) {
        this.options.logger.info({ patrol: name, slot: iso(slot) }, 'patrol is paused; tick skipped');
        reserved.finish();
        return 'paused';
      }
      const ttl = slotClaimMs(calendar.intervalAfter(slot) ?? yearMs);
      if (!(await this.options.store.claim(patrolKeys.slot(name, slot), this.options.owner, ttl))) {
        this.options.logger.debug({ patrol: name, slot: iso(slot) }, 'patrol slot taken by another replica');
        reserved.finish();
        return 'taken';
      }
      this.latestHere.set(name, slot);
      await this.recordLastSlot(name, slot);
      lease = await this.leases.take(name);
    } catch (error) {
      reserved.finish();
      throw error;
    }
    if (!isHeld(lease)) {
      // The slot stays claimed, so the whole fleet skips it, as a tick that finds a run going should.
      this.warnOverlap(name, slot, `on ${lease.heldBy}`);
      reserved.finish();
      return 'overlap';
    }
    return hold(reserved, lease);
  }

  /** A run someone asked for: no slot, no pause check; refused, with the reason, while a run of it is going anywhere. */
  async admitManual(name: string, at: number): Promise<RunHold | { refused: string }> {
    const reserved = this.runs.reserve(name, { at, manual: true, startedAt: this.options.clock.now() });
    if (!isReservation(reserved)) return { refused: describeRun(reserved) };
    let lease: HeldLease | { heldBy: string };
    try {
      lease = await this.leases.take(name);
    } catch (error) {
      reserved.finish();
      throw error;
    }
    if (!isHeld(lease)) {
      reserved.finish();
      return { refused: `on ${lease.heldBy}` };
    }
    return hold(reserved, lease);
  }

  /** A tick node-cron's own noOverlap guard stopped: logged like the ones stopped here. */
  overlapSeenByCron(name: string, slot: number): void {
    const running = this.runs.get(name);
    this.warnOverlap(name, slot, running ? describeRun(running) : 'a scheduled run');
  }

  /** Resolves when every run admitted here has ended. */
  settled(): Promise<void> {
    return this.runs.settled();
  }

  running(): string[] {
    return this.runs.names();
  }

  /** Remembers the latest claimed slot for the catch-up after downtime; never moves it back. */
  private async recordLastSlot(name: string, slot: number): Promise<void> {
    try {
      const last = await this.options.store.get<number>(patrolKeys.lastSlot(name));
      if (last === undefined || last < slot) await this.options.store.set(patrolKeys.lastSlot(name), slot);
    } catch (error) {
      // The slot is claimed already, so it runs; at worst a restart makes one extra catch-up.
      this.options.logger.warn(
        { patrol: name, slot: iso(slot), error: errorMessage(error) },
        'could not record the last slot',
      );
    }
  }

  private warnOverlap(name: string, slot: number, running: string): void {
    this.options.logger.warn(
      { patrol: name, slot: iso(slot), running },
      'patrol tick skipped: the previous run is still going',
    );
  }
}

function hold(reservation: PatrolReservation, lease: HeldLease): RunHold {
  return {
    end: async () => {
      try {
        await lease.release();
      } finally {
        reservation.finish();
      }
    },
  };
}

function describeRun(run: RunningPatrol): string {
  const what = run.manual ? 'a manual run' : `the ${iso(run.at)} slot`;
  return `${what}, started ${iso(run.startedAt)}`;
}
