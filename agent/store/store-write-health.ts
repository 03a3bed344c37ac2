// Whether the store takes writes: every write through the watched store is seen, so /readyz can fail from the first
// refused write (a full disk) until a write succeeds again, instead of answering 200 while clicks are lost.
import { errorMessage, isStoreUnavailable } from '../errors.js';
import type { Store } from './store.js';
import { isStoreWriteError } from './store-write-error.js';

/** The Store's operations that write; a Proxy watches only these. */
const WRITES: ReadonlySet<string> = new Set<keyof Store>([
  'set',
  'delete',
  'claim',
  'release',
  'append',
  'addToSet',
  'removeFromSet',
  'addToIndex',
  'removeFromIndex',
  'writeAll',
]);

export interface WriteFailure {
  /** In words, for /readyz and logs: "disk full", "Redis is out of memory (maxmemory reached)". */
  reason: string;
  at: number;
}

// 8 KiB: a write that needs new pages, as a run's save does, and not one that fits in a page already there.
const PROBE_BYTES = 8 * 1024;
const PROBE_TTL_MS = 60_000;

export class StoreWriteHealth {
  private lastFailure: WriteFailure | undefined;

  constructor(private readonly now: () => number = Date.now) {}

  /** The failure since which no write has succeeded, or undefined while writes work. */
  get failing(): WriteFailure | undefined {
    return this.lastFailure;
  }

  failed(error: unknown): void {
    // A caller's mistake (a value that is not JSON) says nothing about the store.
    if (!isStoreUnavailable(error)) return;
    const reason = isStoreWriteError(error) ? error.reason : errorMessage(error);
    this.lastFailure = { reason, at: this.now() };
  }

  succeeded(): void {
    this.lastFailure = undefined;
  }

  /**
   * For /readyz: ok while writes work. While they fail, one probe write (8 KiB, gone after a minute) says whether
   * they work again, so a replica taken out of service for failing writes comes back without traffic.
   */
  async check(store: Pick<Store, 'set'>, probeKey: string): Promise<{ ok: boolean; detail: string }> {
    const failure = this.lastFailure;
    if (!failure) return { ok: true, detail: 'writes succeed' };
    try {
      await store.set(probeKey, { at: this.now(), pad: 'x'.repeat(PROBE_BYTES) }, PROBE_TTL_MS);
      this.succeeded();
      return { ok: true, detail: 'writes succeed again' };
    } catch (error) {
      this.failed(error);
      const since = new Date(failure.at).toISOString();
      return {
        ok: false,
        detail: `writes fail since ${since}: ${this.lastFailure?.reason ?? failure.reason}`,
      };
    }
  }
}

/** The store, with each write's outcome told to `health`; reads and anything else pass through unchanged. */
export function watchWrites<S extends Store>(store: S, health: StoreWriteHealth): S {
  return new Proxy(store, {
    get(target, property) {
      const value: unknown = Reflect.get(target, property);
      if (typeof property !== 'string' || !WRITES.has(property) || typeof value !== 'function') {
        return typeof value === 'function' ? value.bind(target) : value;
      }
      return async (...args: unknown[]) => {
        try {
          const result: unknown = await value.apply(target, args);
          health.succeeded();
          return result;
        } catch (error) {
          health.failed(error);
          throw error;
        }
      };
    },
  });
}
