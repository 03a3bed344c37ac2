// The Store: keyv for values, plus the atomic primitives keyv lacks (claim, append-only logs, sets, time indexes).

/** One write of `Store.writeAll`: the same write as the method of that name. */
export type StoreWrite =
  /** `json`, when the caller has it already, is the value's JSON (JSON.stringify(value), fields in any order). */
  | { kind: 'set'; key: string; value: unknown; ttlMs?: number; json?: string }
  | { kind: 'delete'; key: string }
  | { kind: 'append'; log: string; record: unknown }
  /** Removes a whole log, for logs kept for a bounded time (a run's trace). */
  | { kind: 'deleteLog'; log: string }
  | { kind: 'addToSet'; set: string; member: string }
  | { kind: 'removeFromSet'; set: string; member: string }
  | { kind: 'addToIndex'; index: string; member: string; at: number }
  | { kind: 'removeFromIndex'; index: string; member: string }
  /** Releases a claim if `owner` holds it, as `release` does; whether it did is not reported. */
  | { kind: 'release'; key: string; owner: string };

/** What a write does, for error messages: "set "run:…"", "append to log "…"". */
export function describeWrite(write: StoreWrite): string {
  switch (write.kind) {
    case 'set':
    case 'delete':
    case 'release':
      return `${write.kind} "${write.key}"`;
    case 'append':
      return `append to log "${write.log}"`;
    case 'deleteLog':
      return `delete log "${write.log}"`;
    case 'addToSet':
    case 'removeFromSet':
      return `${write.kind} "${write.set}"`;
    case 'addToIndex':
    case 'removeFromIndex':
      return `${write.kind} "${write.index}"`;
  }
}

/** A member of a time index and its time. */
export interface IndexEntry {
  member: string;
  at: number;
}

export interface Store {
  /** Human-readable backend name for logs and health checks, e.g. "sqlite ./data/opsbot.sqlite". */
  readonly description: string;

  get<T>(key: string): Promise<T | undefined>;
  /** Stores a JSON-serializable value; ttlMs makes it disappear after that long. */
  set(key: string, value: unknown, ttlMs?: number): Promise<void>;
  delete(key: string): Promise<boolean>;

  /**
   * Atomically takes `key` for `owner` for ttlMs, if nobody holds it (or the holder's claim has lapsed).
   * Returns true for exactly one of any number of concurrent callers, across processes.
   * A claim by the same owner that already holds the key refreshes it and returns true.
   */
  claim(key: string, owner: string, ttlMs: number): Promise<boolean>;
  /** Releases `key` only if `owner` still holds it (compare-and-delete). */
  release(key: string, owner: string): Promise<boolean>;
  /** Who holds `key` now, if anyone. */
  holder(key: string): Promise<string | undefined>;

  /** Appends one record to an append-only log. */
  append(log: string, record: unknown): Promise<void>;
  /** Reads a log in the order written, optionally only records at or after a sequence offset. */
  readLog<T>(log: string, options?: { fromIndex?: number; limit?: number }): Promise<T[]>;

  /** Set membership, for indexes such as "runs waiting for approval". */
  addToSet(set: string, member: string): Promise<void>;
  removeFromSet(set: string, member: string): Promise<void>;
  members(set: string): Promise<string[]>;

  /**
   * Time indexes, for "what is due by now" without reading every member: each member has one time (epoch ms),
   * and adding it again moves it.
   */
  addToIndex(index: string, member: string, at: number): Promise<void>;
  removeFromIndex(index: string, member: string): Promise<void>;
  /** Up to `limit` members whose time is at or before `upTo`, earliest first (ties by member). */
  due(index: string, upTo: number, limit: number): Promise<IndexEntry[]>;

  /**
   * Makes the writes in order, as the single methods would. SQLite makes them in one transaction (one commit
   * instead of one each), Redis in one MULTI/EXEC (one round trip; a crash of this process sends all or none, but
   * a command Redis refuses does not undo the others), memory one by one.
   */
  writeAll(writes: readonly StoreWrite[]): Promise<void>;

  /** Answers when the backend is reachable; throws a StoreUnavailable error otherwise. */
  ping(): Promise<void>;
  close(): Promise<void>;
}
