// A circuit breaker that stops calling a dependency after repeated failures and probes it again with backoff.
import { z } from 'zod';
import { type Clock, systemClock } from './clock.js';
import { CallerError, ErrorCode } from './errors.js';

export const CircuitBreakerOptionsSchema = z
  .object({
    /** Consecutive failures that open the breaker. */
    failureThreshold: z.number().int().positive().default(3),
    /** How long the first opening lasts, in ms. */
    openMs: z.number().int().positive().default(30_000),
    /** The cap for the doubling open time, in ms. */
    maxOpenMs: z.number().int().positive().default(600_000),
  })
  .refine((options) => options.maxOpenMs >= options.openMs, {
    message: 'maxOpenMs must be at least openMs',
    path: ['maxOpenMs'],
  });
export type CircuitBreakerOptions = z.infer<typeof CircuitBreakerOptionsSchema>;
export type CircuitBreakerOptionsInput = z.input<typeof CircuitBreakerOptionsSchema>;

/** What the kernel persists, so an outage is remembered across a restart. */
export const CircuitBreakerSnapshotSchema = z.object({
  version: z.literal(1),
  consecutiveFailures: z.number().int().nonnegative(),
  /** Epoch ms at which the breaker stops refusing calls; null while closed. */
  reopensAt: z.number().nullable(),
  /** The open time the next opening will use (doubles on each failed trial). */
  openMs: z.number().int().positive(),
});
export type CircuitBreakerSnapshot = z.infer<typeof CircuitBreakerSnapshotSchema>;

export type CircuitState = 'closed' | 'open' | 'half_open';

export function parseBreakerOptions(input: CircuitBreakerOptionsInput | undefined, where: string) {
  const parsed = CircuitBreakerOptionsSchema.safeParse(input ?? {});
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = issue?.path.join('.') || 'options';
    throw new CallerError(ErrorCode.InvalidSettings, `${where}: ${field}: ${issue?.message ?? 'invalid'}`);
  }
  return parsed.data;
}

export class CircuitBreaker {
  readonly options: CircuitBreakerOptions;
  private readonly clock: Clock;
  private failures = 0;
  private reopenAt: number | null = null;
  private currentOpenMs: number;
  /** Only in memory: a restarted process may send a fresh trial. */
  private trialStartedAt: number | null = null;

  constructor(options?: CircuitBreakerOptionsInput, clock: Clock = systemClock) {
    this.options = parseBreakerOptions(options, 'circuit breaker');
    this.clock = clock;
    this.currentOpenMs = this.options.openMs;
  }

  state(): CircuitState {
    if (this.reopenAt === null) return 'closed';
    return this.clock.now() < this.reopenAt ? 'open' : 'half_open';
  }

  /** Epoch ms when an open breaker lets a trial through; undefined unless open. */
  reopensAt(): number | undefined {
    return this.state() === 'open' ? (this.reopenAt ?? undefined) : undefined;
  }

  consecutiveFailures(): number {
    return this.failures;
  }

  /**
   * Whether a call may go ahead now. While half-open only one trial is let through; the caller must then
   * report its outcome with recordSuccess, recordFailure or recordCancelled.
   */
  canPass(): boolean {
    const state = this.state();
    if (state === 'closed') return true;
    if (state === 'open') return false;
    const now = this.clock.now();
    // A trial whose outcome was never reported must not block the dependency forever.
    if (this.trialStartedAt !== null && now - this.trialStartedAt < this.currentOpenMs) return false;
    this.trialStartedAt = now;
    return true;
  }

  recordSuccess(): void {
    this.failures = 0;
    this.reopenAt = null;
    this.currentOpenMs = this.options.openMs;
    this.trialStartedAt = null;
  }

  recordFailure(): void {
    this.failures += 1;
    const state = this.state();
    if (state === 'half_open') {
      this.currentOpenMs = Math.min(this.currentOpenMs * 2, this.options.maxOpenMs);
      this.open();
    } else if (state === 'closed' && this.failures >= this.options.failureThreshold) {
      this.open();
    }
    // A late failure while already open came from a call started before opening: it must not extend the wait.
  }

  /** The call ended without telling anything about the dependency (for example the caller aborted it). */
  recordCancelled(): void {
    this.trialStartedAt = null;
  }

  snapshot(): CircuitBreakerSnapshot {
    return {
      version: 1,
      consecutiveFailures: this.failures,
      reopensAt: this.reopenAt,
      openMs: this.currentOpenMs,
    };
  }

  /** Loads a snapshot; validate stored JSON with CircuitBreakerSnapshotSchema first. */
  restore(snapshot: CircuitBreakerSnapshot): void {
    const valid = CircuitBreakerSnapshotSchema.parse(snapshot);
    this.failures = valid.consecutiveFailures;
    this.reopenAt = valid.reopensAt;
    // The settings may have changed since the snapshot was taken.
    this.currentOpenMs = Math.min(Math.max(valid.openMs, this.options.openMs), this.options.maxOpenMs);
    this.trialStartedAt = null;
  }

  private open(): void {
    this.reopenAt = this.clock.now() + this.currentOpenMs;
    this.trialStartedAt = null;
  }
}

/** One breaker per name (for example per tool), all with the same options and clock. */
export class BreakerRegistry {
  readonly options: CircuitBreakerOptions;
  private readonly breakers = new Map<string, CircuitBreaker>();

  constructor(
    options?: CircuitBreakerOptionsInput,
    private readonly clock: Clock = systemClock,
  ) {
    this.options = parseBreakerOptions(options, 'breaker registry');
  }

  get(name: string): CircuitBreaker {
    let breaker = this.breakers.get(name);
    if (!breaker) {
      breaker = new CircuitBreaker(this.options, this.clock);
      this.breakers.set(name, breaker);
    }
    return breaker;
  }

  names(): string[] {
    return [...this.breakers.keys()];
  }

  /** Only breakers that remember something, so a persisted registry stays small. */
  snapshot(): Record<string, CircuitBreakerSnapshot> {
    const result: Record<string, CircuitBreakerSnapshot> = {};
    for (const [name, breaker] of this.breakers) {
      const snapshot = breaker.snapshot();
      if (snapshot.consecutiveFailures > 0 || snapshot.reopensAt !== null) result[name] = snapshot;
    }
    return result;
  }

  restore(snapshots: Record<string, CircuitBreakerSnapshot>): void {
    for (const [name, snapshot] of Object.entries(snapshots)) this.get(name).restore(snapshot);
  }
}
