// Cancel requests for runs a worker is stepping: told at once to a worker in this process, and kept in the
// Store for a worker in another, which reads it when it picks the run up or renews its lease.
import type { Store } from './store/store.js';
import { storeKeys } from './store/store-keys.js';

export interface CancelRequest {
  key: string;
  displayName: string;
}

type Watcher = (request: CancelRequest) => void;

/** A request outlives any run's wall time, so it is still there when a worker next looks. */
const REQUEST_TTL_MS = 24 * 3_600_000;

export class RunCancels {
  private readonly watchers = new Map<string, Watcher>();

  constructor(private readonly store: Store) {}

  async request(runId: string, request: CancelRequest): Promise<void> {
    await this.store.set(storeKeys.cancelRequest(runId), request, REQUEST_TTL_MS);
    this.watchers.get(runId)?.(request);
  }

  /** Called by the worker stepping a run; returns the function that stops watching. */
  watch(runId: string, watcher: Watcher): () => void {
    this.watchers.set(runId, watcher);
    return () => {
      if (this.watchers.get(runId) === watcher) this.watchers.delete(runId);
    };
  }

  async pending(runId: string): Promise<CancelRequest | undefined> {
    const stored = await this.store.get<CancelRequest | string>(storeKeys.cancelRequest(runId));
    if (stored === undefined) return undefined;
    // Requests written by v1 runs held only the display name.
    return typeof stored === 'string' ? { key: stored, displayName: stored } : stored;
  }

  async forget(runId: string): Promise<void> {
    await this.store.delete(storeKeys.cancelRequest(runId));
  }
}
