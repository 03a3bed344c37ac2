// A small cache whose entries expire on an injected clock; concurrent loads of one key share one request.
import type { Clock } from '../../agent/clock.js';

export class TtlCache<V> {
  private readonly entries = new Map<string, { value: Promise<V>; expiresAt: number }>();

  constructor(
    private readonly clock: Clock,
    private readonly ttlMs: number,
    private readonly maxEntries = 5_000,
  ) {}

  /** The cached value, or a fresh load; a load that fails is forgotten so the next call tries again. */
  get(key: string, load: () => Promise<V>, ttlMs = this.ttlMs): Promise<V> {
    const now = this.clock.now();
    const cached = this.entries.get(key);
    if (cached && cached.expiresAt > now) return cached.value;
    const value = load();
    this.entries.set(key, { value, expiresAt: now + ttlMs });
    value.catch(() => {
      if (this.entries.get(key)?.value === value) this.entries.delete(key);
    });
    if (this.entries.size > this.maxEntries) this.evictExpired(now);
    return value;
  }

  set(key: string, value: V, ttlMs = this.ttlMs): void {
    this.entries.set(key, { value: Promise.resolve(value), expiresAt: this.clock.now() + ttlMs });
  }

  private evictExpired(now: number): void {
    for (const [key, entry] of this.entries) if (entry.expiresAt <= now) this.entries.delete(key);
    // Still full of live entries: drop the oldest, which Map keeps first.
    for (const key of this.entries.keys()) {
      if (this.entries.size <= this.maxEntries) break;
      this.entries.delete(key);
    }
  }
}
