// Expires questions and approvals nobody answered, at their expiresAt: it asks the wait-expiry index for what
// is due, so a pass costs what expires, not what waits. It wakes at least every interval, or sooner for the
// next expiry in the index. A click still checks expiry itself and never relies on this sweep.
import type { Clock } from './clock.js';
import { errorMessage } from './errors.js';
import type { Logger } from './logger.js';
import type { Timers } from './timers.js';

/** A waiting run and when its question or approval expires. */
export interface DueWait {
  member: string;
  at: number;
}

export interface ExpirySweepDeps {
  /** Up to `limit` waiting runs whose wait ends at or before `upTo`, earliest first. */
  dueWaits(upTo: number, limit: number): Promise<DueWait[]>;
  /** Expires the run's question or approval if it is due; false when there was nothing to expire. */
  expire(runId: string): Promise<boolean>;
  /** Puts a stale index entry right (moved or removed); when the run's wait ends now, if it still waits. */
  reindex(runId: string): Promise<number | undefined>;
  /** Brings runs that waited before an upgrade up to date (the expiry index, approvals kept in the run), once. */
  backfill?(): Promise<number>;
  clock: Clock;
  timers: Timers;
  logger: Logger;
  /** The longest the sweep sleeps (limits.expiry_sweep). */
  intervalMs: number;
  /** How many due waits one read of the index returns. */
  batchSize?: number;
  /** How many runs it expires at once: each is a dozen Store round trips, and they do not depend on each other. */
  concurrency?: number;
}

const DEFAULT_BATCH_SIZE = 100;
const DEFAULT_CONCURRENCY = 16;

export class ExpirySweep {
  /** When the earliest wait this pass could not settle ends; the sweep wakes then, or after its interval. */
  private nextDue: number | undefined;
  private backfilled = false;
  private timer: unknown;
  private running: Promise<number> | undefined;
  private stopped = true;

  constructor(private readonly deps: ExpirySweepDeps) {}

  start(): void {
    this.stopped = false;
    this.schedule(0);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.deps.timers.clearTimeout(this.timer);
    await this.running;
  }

  /** One pass: expires what is due and returns how many it expired. Passes never overlap. */
  sweep(): Promise<number> {
    this.running ??= this.pass().finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    this.deps.timers.clearTimeout(this.timer);
    this.timer = this.deps.timers.setTimeout(() => {
      this.sweep()
        .catch((error) =>
          this.deps.logger.warn({ err: errorMessage(error) }, 'could not sweep expired waits'),
        )
        .finally(() => this.schedule(this.nextWakeMs()));
    }, ms);
  }

  private nextWakeMs(): number {
    const now = this.deps.clock.now();
    const next = Math.min(now + this.deps.intervalMs, this.nextDue ?? Number.POSITIVE_INFINITY);
    return Math.max(0, next - now);
  }

  private async pass(): Promise<number> {
    this.nextDue = undefined;
    await this.backfillOnce();
    const tried = new Set<string>();
    const expired = await this.expireDue(tried);
    // The earliest entry still to come: ones this pass tried and left due are retried after the interval.
    const now = this.deps.clock.now();
    const upcoming = await this.deps.dueWaits(Number.POSITIVE_INFINITY, tried.size + 1);
    this.nextDue = upcoming.find((wait) => wait.at > now || !tried.has(wait.member))?.at;
    return expired;
  }

  /** Reads due waits a batch at a time until none is left that this pass has not tried. */
  private async expireDue(tried: Set<string>): Promise<number> {
    const batchSize = this.deps.batchSize ?? DEFAULT_BATCH_SIZE;
    const concurrency = Math.max(1, this.deps.concurrency ?? DEFAULT_CONCURRENCY);
    let expired = 0;
    for (;;) {
      // Expired runs leave the index; ones tried and left behind are read again, so read past them.
      const page = (await this.deps.dueWaits(this.deps.clock.now(), batchSize + tried.size))
        .map((wait) => wait.member)
        .filter((runId) => !tried.has(runId));
      if (page.length === 0) return expired;
      for (const runId of page) tried.add(runId);
      for (let start = 0; start < page.length; start += concurrency) {
        const outcomes = await Promise.all(
          page.slice(start, start + concurrency).map((id) => this.expireOne(id)),
        );
        expired += outcomes.filter(Boolean).length;
      }
    }
  }

  private async expireOne(runId: string): Promise<boolean> {
    try {
      if (await this.deps.expire(runId)) return true;
      // Nothing to expire: the entry is stale (the run moved on, or another process expired it first).
      await this.deps.reindex(runId);
    } catch (error) {
      this.deps.logger.warn({ runId, err: errorMessage(error) }, 'could not expire a run');
    }
    return false;
  }

  private async backfillOnce(): Promise<void> {
    if (this.backfilled || !this.deps.backfill) return;
    try {
      const indexed = await this.deps.backfill();
      if (indexed > 0)
        this.deps.logger.info(
          { runs: indexed },
          'brought runs that were waiting before the upgrade up to date',
        );
      this.backfilled = true;
    } catch (error) {
      // Waits saved from now on are indexed anyway; the older ones wait for the next pass's attempt.
      this.deps.logger.warn({ err: errorMessage(error) }, 'could not index older waiting runs');
    }
  }
}
