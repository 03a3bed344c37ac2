// Counts wrong playground tokens per client and in total, so guessing is slow even from many addresses.
import type { Clock } from '../../agent/clock.js';

export interface FailedAttemptLimits {
  /** Wrong tokens one client may send per window before it must wait. */
  perClient: number;
  /** Wrong tokens all clients together may send per window; the ceiling for an attacker rotating ids. */
  total: number;
  windowMs: number;
  /** Clients remembered at once; beyond this the oldest are forgotten (the total still counts them). */
  maxClients: number;
}

export const DEFAULT_FAILED_ATTEMPT_LIMITS = {
  perClient: 10,
  total: 100,
  windowMs: 60_000,
  maxClients: 10_000,
} as const satisfies FailedAttemptLimits;

interface Window {
  start: number;
  failures: number;
}

/**
 * Fixed windows, in memory: each replica counts its own attempts, which multiplies the ceiling by the number
 * of replicas but never lets a replica be guessed against faster than its limits.
 */
export class FailedAttemptLimiter {
  private readonly clients = new Map<string, Window>();
  private total: Window = { start: 0, failures: 0 };

  constructor(
    private readonly clock: Clock,
    private readonly limits: FailedAttemptLimits = DEFAULT_FAILED_ATTEMPT_LIMITS,
  ) {}

  /** Milliseconds this client must wait before its next attempt is even checked, or 0. */
  retryAfterMs(client: string): number {
    const now = this.clock.now();
    const waits = [this.waitFor(this.current(this.total, now), this.limits.total, now)];
    const own = this.clients.get(client);
    if (own) waits.push(this.waitFor(this.current(own, now), this.limits.perClient, now));
    return Math.max(...waits);
  }

  recordFailure(client: string): void {
    const now = this.clock.now();
    this.total = this.current(this.total, now);
    this.total.failures++;
    const own = this.current(this.clients.get(client) ?? { start: now, failures: 0 }, now);
    own.failures++;
    this.clients.delete(client);
    this.clients.set(client, own);
    if (this.clients.size > this.limits.maxClients) {
      const oldest = this.clients.keys().next().value;
      if (oldest !== undefined) this.clients.delete(oldest);
    }
  }

  private current(window: Window, now: number): Window {
    return now - window.start >= this.limits.windowMs ? { start: now, failures: 0 } : window;
  }

  private waitFor(window: Window, limit: number, now: number): number {
    return window.failures >= limit ? window.start + this.limits.windowMs - now : 0;
  }
}
