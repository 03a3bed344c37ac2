// Expires questions and approvals nobody answered, at their expiresAt: it wakes at least every interval, or
// sooner for the next expiry it knows of. A click still checks expiry itself and never relies on this sweep.
import type { Clock } from './clock.js';
import { errorMessage } from './errors.js';
import type { Logger } from './logger.js';
import type { Run } from './run.js';
import { waitingUntil } from './run.js';
import type { Timers } from './timers.js';

export interface ExpirySweepDeps {
  waitingRunIds(): Promise<string[]>;
  find(runId: string): Promise<Run | undefined>;
  /** Expires the run's question or approval if it is due; false when there was nothing to expire. */
  expire(runId: string): Promise<boolean>;
  /** Closes expired approvals no run waits for (left by a crash); how many it closed. */
  expireOrphans?(): Promise<number>;
  clock: Clock;
  timers: Timers;
  logger: Logger;
  /** The longest the sweep sleeps (limits.expiry_sweep). */
  intervalMs: number;
}

/** Orphaned approvals are looked for on the first pass and then once in this many (about a minute at 10 s). */
const ORPHAN_PASSES = 6;

export class ExpirySweep {
  /** When each waiting run's wait ends, as last read: a run is loaded once, not at every pass. */
  private readonly dueAt = new Map<string, number>();
  private timer: unknown;
  private running: Promise<number> | undefined;
  private stopped = true;
  private passes = 0;

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
    let next = now + this.deps.intervalMs;
    for (const due of this.dueAt.values()) next = Math.min(next, due);
    return Math.max(0, next - now);
  }

  private async pass(): Promise<number> {
    const { clock, logger } = this.deps;
    const waiting = new Set(await this.deps.waitingRunIds());
    for (const runId of this.dueAt.keys()) if (!waiting.has(runId)) this.dueAt.delete(runId);
    for (const runId of waiting) {
      if (this.dueAt.has(runId)) continue;
      const run = await this.deps.find(runId).catch(() => undefined);
      const due = run ? waitingUntil(run) : undefined;
      if (due !== undefined) this.dueAt.set(runId, due);
    }
    const orphanPass = this.passes % ORPHAN_PASSES === 0;
    this.passes += 1;
    let expired =
      (await (orphanPass ? this.deps.expireOrphans?.() : undefined)?.catch((error) => {
        logger.warn({ err: errorMessage(error) }, 'could not close orphaned approvals');
        return 0;
      })) ?? 0;
    for (const [runId, due] of this.dueAt) {
      if (clock.now() < due) continue;
      this.dueAt.delete(runId);
      try {
        if (await this.deps.expire(runId)) expired += 1;
      } catch (error) {
        logger.warn({ runId, err: errorMessage(error) }, 'could not expire a run');
      }
    }
    return expired;
  }
}
