// Counts wrong playground tokens per client, per source address and in total, so guessing is slow from one
// machine however it names itself, and a flood from many machines cannot lock the real user out.
import type { Clock } from '../../agent/clock.js';

export interface FailedAttemptLimits {
  /** Wrong tokens one client id may send per window before it must wait. */
  perClient: number;
  /** Wrong tokens one source address (an IPv6 /64) may send per window, whatever client ids it rotates. */
  perAddress: number;
  /**
   * Wrong tokens all clients together may send per window. Past it every wrong token is answered 429, but a
   * right one still gets in: the ceiling marks a flood, it does not shut the door on everyone.
   */
  total: number;
  windowMs: number;
  /** Clients and addresses remembered at once; beyond this the oldest are forgotten (the total still counts). */
  maxClients: number;
}

export const DEFAULT_FAILED_ATTEMPT_LIMITS = {
  perClient: 10,
  perAddress: 30,
  total: 100,
  windowMs: 60_000,
  maxClients: 10_000,
} as const satisfies FailedAttemptLimits;

/** Who sent a token: the page's client id, and the peer it came from. */
export interface Attempter {
  client: string;
  address: string;
}

interface Window {
  start: number;
  failures: number;
}

/**
 * Fixed windows, in memory: each replica counts its own attempts, which multiplies the ceilings by the number
 * of replicas but never lets a replica be guessed against faster than its limits.
 */
export class FailedAttemptLimiter {
  private readonly clients: WindowsByKey;
  private readonly addresses: WindowsByKey;
  private total: Window = { start: 0, failures: 0 };

  constructor(
    private readonly clock: Clock,
    private readonly limits: FailedAttemptLimits = DEFAULT_FAILED_ATTEMPT_LIMITS,
  ) {
    this.clients = new WindowsByKey(limits.windowMs, limits.maxClients);
    this.addresses = new WindowsByKey(limits.windowMs, limits.maxClients);
  }

  /**
   * Milliseconds this client id or its address must wait before its next token is even compared, or 0. The
   * total ceiling is not part of it: a right token is still let through past that.
   */
  retryAfterMs(attempter: Attempter): number {
    const now = this.clock.now();
    return Math.max(
      this.clients.waitMs(attempter.client, this.limits.perClient, now),
      this.addresses.waitMs(attempter.address, this.limits.perAddress, now),
    );
  }

  /** Counts a wrong token; returns how long every wrong token must now wait, because the total is spent, or 0. */
  recordFailure(attempter: Attempter): number {
    const now = this.clock.now();
    this.total = current(this.total, now, this.limits.windowMs);
    this.total.failures++;
    this.clients.count(attempter.client, now);
    this.addresses.count(attempter.address, now);
    return this.total.failures > this.limits.total ? this.total.start + this.limits.windowMs - now : 0;
  }
}

/** One fixed window per key, the least recently counted forgotten first. */
class WindowsByKey {
  private readonly windows = new Map<string, Window>();

  constructor(
    private readonly windowMs: number,
    private readonly maxKeys: number,
  ) {}

  waitMs(key: string, limit: number, now: number): number {
    const own = this.windows.get(key);
    if (!own) return 0;
    const window = current(own, now, this.windowMs);
    return window.failures >= limit ? window.start + this.windowMs - now : 0;
  }

  count(key: string, now: number): void {
    const own = current(this.windows.get(key) ?? { start: now, failures: 0 }, now, this.windowMs);
    own.failures++;
    this.windows.delete(key);
    this.windows.set(key, own);
    if (this.windows.size > this.maxKeys) {
      const oldest = this.windows.keys().next().value;
      if (oldest !== undefined) this.windows.delete(oldest);
    }
  }
}

function current(window: Window, now: number, windowMs: number): Window {
  return now - window.start >= windowMs ? { start: now, failures: 0 } : window;
}
