// Per-person limit on new tasks, counted with atomic claims so that every replica shares one count.
import { randomBytes } from 'node:crypto';
import { type Clock, systemClock } from '../clock.js';
import { type Principal, personKey } from '../principal.js';
import type { Store } from '../store/store.js';
import { storeKeys } from '../store/store-keys.js';

export type RateLimitResult = { allowed: true } | { allowed: false; retryAfterMs: number; message: string };

export interface TaskRateLimiterOptions {
  /** Tasks one person may start per window; read on each call so a settings reload applies at once. */
  limit: number | (() => number);
  /** The window length; one minute for `tasks_per_minute`. */
  windowMs?: number;
  clock?: Clock;
}

export class TaskRateLimiter {
  private readonly clock: Clock;
  private readonly windowMs: number;
  /**
   * By person and window: the first slot this process has not seen taken. Slots are never given back within a
   * window, so a search starts there instead of at 0: one claim per task, not one per task already started.
   */
  private readonly firstFree = new Map<string, number>();
  private firstFreeWindow = -1;

  constructor(
    private readonly store: Store,
    private readonly options: TaskRateLimiterOptions,
  ) {
    this.clock = options.clock ?? systemClock;
    this.windowMs = options.windowMs ?? 60_000;
  }

  /**
   * Takes one of the window's N slots for this person, if one is free. Each slot is a claim, so two replicas
   * can never both take the last one; a fixed window keeps it to N claims at most, with no read-modify-write.
   * The count is per person (personKey), so one person's playground and CLI tasks share it.
   */
  async take(person: Pick<Principal, 'platform' | 'userId'>): Promise<RateLimitResult> {
    const limit = typeof this.options.limit === 'function' ? this.options.limit() : this.options.limit;
    const now = this.clock.now();
    const window = Math.floor(now / this.windowMs);
    const windowEnd = (window + 1) * this.windowMs;
    // A unique owner per task: the same owner re-claiming a slot would refresh it and count twice.
    const owner = randomBytes(9).toString('base64url');
    if (window !== this.firstFreeWindow) {
      this.firstFree.clear();
      this.firstFreeWindow = window;
    }
    const who = personKey(person);
    for (let slot = this.firstFree.get(who) ?? 0; slot < limit; slot++) {
      // Taken by this task, or by another (here or on another replica): either way, not free any more.
      this.firstFree.set(who, slot + 1);
      if (await this.store.claim(storeKeys.rateSlot(who, window, slot), owner, windowEnd - now)) {
        return { allowed: true };
      }
    }
    const retryAfterMs = windowEnd - now;
    const seconds = Math.max(1, Math.ceil(retryAfterMs / 1000));
    const tasks = limit === 1 ? 'task' : 'tasks';
    return {
      allowed: false,
      retryAfterMs,
      message: `You can start at most ${limit} ${tasks} per ${describeWindow(this.windowMs)}, and you have reached that. Please try again in ${seconds} s.`,
    };
  }
}

function describeWindow(windowMs: number): string {
  if (windowMs === 60_000) return 'minute';
  if (windowMs % 60_000 === 0) return `${windowMs / 60_000} minutes`;
  return `${Math.ceil(windowMs / 1000)} seconds`;
}
