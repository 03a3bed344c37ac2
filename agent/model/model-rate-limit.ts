// This process's pace of model calls: a token bucket and a cap on calls open at once, slowed by the server's 429s
// (the rate halves, and a Retry-After holds every call) and sped up again by its answers, a little each time.
import { type Clock, systemClock } from '../clock.js';
import type { Timers } from '../timers.js';
import type { ModelClient, ModelReply, ModelRequest, ModelWait } from './model-port.js';

export interface ModelRateLimiterOptions {
  requestsPerSecond: number;
  burst: number;
  maxInFlight: number;
  clock?: Clock;
  timers?: Timers;
}

/** What the limiter is doing now, for metrics and tests. */
export interface ModelRateLimitFigures {
  /** Requests per second now: the configured rate, or less after 429s. */
  rate: number;
  inFlight: number;
  queued: number;
}

type Admission = Pick<ModelRequest, 'signal' | 'onWaiting' | 'onAdmitted'>;

interface Waiter {
  admit(): void;
  admission: Admission;
}

/** A 429 halves the rate, down to this share of the configured one. */
const FLOOR_SHARE = 1 / 32;
/** Each answered request wins back this share of the configured rate. */
const RECOVERY_SHARE = 1 / 10;
/** Calls open at once all meet the same overload: their 429s halve the rate once, not once each. */
const DECREASE_SPACING_MS = 1_000;
/**
 * Node's timers, kept referenced: a wake is pending only while a call waits, and a CLI run whose only pending
 * work is a waiting model call must not exit under it.
 */
const referencedTimers: Timers = {
  setTimeout: (callback, ms) => setTimeout(callback, ms),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};
/** The SDK honours a Retry-After only below a minute (client.js retryRequest), and so does the limiter. */
const MAX_RETRY_AFTER_MS = 60_000;

export class ModelRateLimiter {
  private readonly clock: Clock;
  private readonly timers: Timers;
  private tokens: number;
  private rate: number;
  private refilledAt: number;
  private pausedUntil = 0;
  private lastDecreaseAt = Number.NEGATIVE_INFINITY;
  private inFlight = 0;
  private readonly waiting: Waiter[] = [];
  private wake: { handle: unknown; at: number } | undefined;

  constructor(private readonly options: ModelRateLimiterOptions) {
    this.clock = options.clock ?? systemClock;
    this.timers = options.timers ?? referencedTimers;
    this.tokens = options.burst;
    this.rate = options.requestsPerSecond;
    this.refilledAt = this.clock.now();
  }

  figures(): ModelRateLimitFigures {
    return { rate: this.rate, inFlight: this.inFlight, queued: this.waiting.length };
  }

  /**
   * Resolves when the call may be sent, with the function that says it is over; rejects with the signal's reason
   * when the caller gives up while it waits. A call waits behind every call that waits already, in order.
   */
  acquire(admission: Admission = {}): Promise<() => void> {
    const { signal } = admission;
    if (signal?.aborted) return Promise.reject(signal.reason);
    this.refill();
    if (this.waiting.length === 0 && this.blockedBy() === undefined) return Promise.resolve(this.admit());
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        const index = this.waiting.indexOf(waiter);
        if (index !== -1) this.waiting.splice(index, 1);
        reject(signal?.reason);
        this.pump();
      };
      const waiter: Waiter = {
        admission,
        admit: () => {
          signal?.removeEventListener('abort', onAbort);
          resolve(this.admit());
          admission.onAdmitted?.();
        },
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      const wait: ModelWait = { queued: this.waiting.length, reason: this.blockedBy() ?? 'rate' };
      this.waiting.push(waiter);
      admission.onWaiting?.(wait);
      this.pump();
    });
  }

  /** The server answered 429: halve the rate, spend the burst, and hold every call for its Retry-After. */
  throttled(retryAfterMs?: number): void {
    const now = this.clock.now();
    this.refill();
    if (now - this.lastDecreaseAt >= DECREASE_SPACING_MS) {
      this.lastDecreaseAt = now;
      this.rate = Math.max(this.options.requestsPerSecond * FLOOR_SHARE, this.rate / 2);
      this.tokens = Math.min(this.tokens, 0);
    }
    if (retryAfterMs !== undefined && retryAfterMs > 0 && retryAfterMs < MAX_RETRY_AFTER_MS) {
      this.pausedUntil = Math.max(this.pausedUntil, now + retryAfterMs);
    }
    this.pump();
  }

  /** The server answered: win back a little of the rate. */
  succeeded(): void {
    if (this.rate >= this.options.requestsPerSecond) return;
    this.refill();
    const configured = this.options.requestsPerSecond;
    this.rate = Math.min(configured, this.rate + configured * RECOVERY_SHARE);
    this.pump();
  }

  private admit(): () => void {
    this.tokens -= 1;
    this.inFlight += 1;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.inFlight -= 1;
      this.pump();
    };
  }

  private blockedBy(): ModelWait['reason'] | undefined {
    if (this.clock.now() < this.pausedUntil) return 'server';
    if (this.inFlight >= this.options.maxInFlight) return 'in_flight';
    if (this.tokens < 1) return 'rate';
    return undefined;
  }

  /** Nothing is earned while the server holds calls back: its pause ends with the bucket as the 429 left it. */
  private refill(): void {
    const now = this.clock.now();
    const from = Math.max(this.refilledAt, this.pausedUntil);
    if (now > from)
      this.tokens = Math.min(this.options.burst, this.tokens + ((now - from) * this.rate) / 1000);
    this.refilledAt = Math.max(this.refilledAt, now);
  }

  /** Admits the calls at the head of the line that may go, then sets one timer for when the next one may. */
  private pump(): void {
    this.refill();
    let blocked = this.blockedBy();
    while (this.waiting.length > 0 && blocked === undefined) {
      this.waiting.shift()?.admit();
      blocked = this.blockedBy();
    }
    if (this.waiting.length === 0 || blocked === 'in_flight') {
      this.stopWaking();
      return;
    }
    const now = this.clock.now();
    const delay =
      blocked === 'server' ? this.pausedUntil - now : Math.ceil(((1 - this.tokens) * 1000) / this.rate);
    this.wakeAt(now + Math.max(1, delay));
  }

  private wakeAt(at: number): void {
    if (this.wake?.at === at) return;
    this.stopWaking();
    const handle = this.timers.setTimeout(() => {
      this.wake = undefined;
      this.pump();
    }, at - this.clock.now());
    this.wake = { handle, at };
  }

  private stopWaking(): void {
    if (this.wake) this.timers.clearTimeout(this.wake.handle);
    this.wake = undefined;
  }
}

/** The model client that waits for the limiter before each call, and tells it when the server answered. */
export function rateLimitedModelClient(inner: ModelClient, limiter: ModelRateLimiter): ModelClient {
  return {
    get model() {
      return inner.model;
    },
    outage: () => inner.outage?.(),
    async complete(request: ModelRequest): Promise<ModelReply> {
      const release = await limiter.acquire(request);
      try {
        const reply = await inner.complete(request);
        limiter.succeeded();
        return reply;
      } finally {
        release();
      }
    },
  };
}
