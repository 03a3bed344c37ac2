// A circuit breaker's settings, its stored state and its transitions, as pure functions of the state and the time,
// so that every process sharing a Store applies the same rules to the same record.
import { z } from 'zod';
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

export function parseBreakerOptions(input: CircuitBreakerOptionsInput | undefined, where: string) {
  const parsed = CircuitBreakerOptionsSchema.safeParse(input ?? {});
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = issue?.path.join('.') || 'options';
    throw new CallerError(ErrorCode.InvalidSettings, `${where}: ${field}: ${issue?.message ?? 'invalid'}`);
  }
  return parsed.data;
}

/** What the Store keeps per breaker; a closed breaker with no failures has no record at all. */
export const BreakerStateSchema = z.object({
  version: z.literal(1),
  consecutiveFailures: z.number().int().nonnegative(),
  /** Epoch ms at which the breaker stops refusing calls; null while closed. */
  reopensAt: z.number().nullable(),
  /** The open time the next opening will use (doubles on each failed trial). */
  openMs: z.number().int().positive(),
  /** Epoch ms of the first failure in this run of failures (absent in records kept before it was added). */
  failingSince: z.number().optional(),
});
export type BreakerState = z.infer<typeof BreakerStateSchema>;

export type CircuitState = 'closed' | 'open' | 'half_open';

export function closedState(options: CircuitBreakerOptions): BreakerState {
  return { version: 1, consecutiveFailures: 0, reopensAt: null, openMs: options.openMs };
}

/** Closed with nothing to remember: the state a success leaves, and the one a missing record means. */
export function isClean(state: BreakerState, options: CircuitBreakerOptions): boolean {
  return state.consecutiveFailures === 0 && state.reopensAt === null && state.openMs === options.openMs;
}

export function circuitState(state: BreakerState, now: number): CircuitState {
  if (state.reopensAt === null) return 'closed';
  return now < state.reopensAt ? 'open' : 'half_open';
}

/**
 * One more failure: at the threshold a closed breaker opens; a failed trial (half-open) opens it for twice as long,
 * up to the cap. A late failure while open came from a call started before the opening, so it does not extend it.
 */
export function afterFailure(state: BreakerState, now: number, options: CircuitBreakerOptions): BreakerState {
  const counted = {
    ...state,
    consecutiveFailures: state.consecutiveFailures + 1,
    failingSince: state.consecutiveFailures === 0 ? now : (state.failingSince ?? now),
  };
  const circuit = circuitState(state, now);
  if (circuit === 'half_open') {
    const openMs = Math.min(state.openMs * 2, options.maxOpenMs);
    return { ...counted, openMs, reopensAt: now + openMs };
  }
  if (circuit === 'closed' && counted.consecutiveFailures >= options.failureThreshold) {
    return { ...counted, reopensAt: now + state.openMs };
  }
  return counted;
}

/**
 * A stored record as this process reads it: undefined or unreadable is closed (an unreadable one is reported by
 * the caller), and an open time from older settings is brought within the current ones.
 */
export function readBreakerState(
  stored: unknown,
  options: CircuitBreakerOptions,
): { state: BreakerState; unreadable: boolean } {
  if (stored === undefined || stored === null) return { state: closedState(options), unreadable: false };
  const parsed = BreakerStateSchema.safeParse(stored);
  if (!parsed.success) return { state: closedState(options), unreadable: true };
  const openMs = Math.min(Math.max(parsed.data.openMs, options.openMs), options.maxOpenMs);
  return { state: { ...parsed.data, openMs }, unreadable: false };
}
