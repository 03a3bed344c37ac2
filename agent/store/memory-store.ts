// An in-process Store for tests, benchmarks and throwaway runs: same contract, nothing survives the process.
import type { Clock } from '../clock.js';
import { systemClock } from '../clock.js';
import type { Store, StoreWrite } from './store.js';

interface Entry {
  json: string;
  expiresAt: number | undefined;
}

export class MemoryStore implements Store {
  readonly description = 'memory (nothing is kept after exit)';
  private readonly values = new Map<string, Entry>();
  private readonly claims = new Map<string, { owner: string; expiresAt: number }>();
  private readonly logs = new Map<string, string[]>();
  private readonly sets = new Map<string, Set<string>>();

  constructor(private readonly clock: Clock = systemClock) {}

  async get<T>(key: string): Promise<T | undefined> {
    const entry = this.values.get(key);
    if (!entry) return undefined;
    if (entry.expiresAt !== undefined && entry.expiresAt <= this.clock.now()) {
      this.values.delete(key);
      return undefined;
    }
    return JSON.parse(entry.json) as T;
  }

  async set(key: string, value: unknown, ttlMs?: number): Promise<void> {
    const expiresAt = ttlMs === undefined ? undefined : this.clock.now() + ttlMs;
    this.values.set(key, { json: JSON.stringify(value), expiresAt });
  }

  async delete(key: string): Promise<boolean> {
    return this.values.delete(key);
  }

  async claim(key: string, owner: string, ttlMs: number): Promise<boolean> {
    const now = this.clock.now();
    const current = this.claims.get(key);
    if (current && current.expiresAt > now && current.owner !== owner) return false;
    this.claims.set(key, { owner, expiresAt: now + ttlMs });
    return true;
  }

  async release(key: string, owner: string): Promise<boolean> {
    const current = this.claims.get(key);
    if (!current || current.owner !== owner) return false;
    this.claims.delete(key);
    return true;
  }

  async holder(key: string): Promise<string | undefined> {
    const current = this.claims.get(key);
    if (!current || current.expiresAt <= this.clock.now()) return undefined;
    return current.owner;
  }

  async append(log: string, record: unknown): Promise<void> {
    let entries = this.logs.get(log);
    if (!entries) {
      entries = [];
      this.logs.set(log, entries);
    }
    entries.push(JSON.stringify(record));
  }

  async readLog<T>(log: string, options: { fromIndex?: number; limit?: number } = {}): Promise<T[]> {
    const entries = this.logs.get(log) ?? [];
    const from = options.fromIndex ?? 0;
    const to = options.limit === undefined ? entries.length : from + options.limit;
    return entries.slice(from, to).map((json) => JSON.parse(json) as T);
  }

  async addToSet(set: string, member: string): Promise<void> {
    let members = this.sets.get(set);
    if (!members) {
      members = new Set();
      this.sets.set(set, members);
    }
    members.add(member);
  }

  async removeFromSet(set: string, member: string): Promise<void> {
    this.sets.get(set)?.delete(member);
  }

  async members(set: string): Promise<string[]> {
    return [...(this.sets.get(set) ?? [])];
  }

  /** Each method here does its work before its first await, so starting them in order writes all at once. */
  async writeAll(writes: readonly StoreWrite[]): Promise<void> {
    const done: Promise<unknown>[] = [];
    for (const write of writes) done.push(this.startWrite(write));
    await Promise.all(done);
  }

  private startWrite(write: StoreWrite): Promise<unknown> {
    switch (write.kind) {
      case 'set':
        return this.set(write.key, write.value, write.ttlMs);
      case 'delete':
        return this.delete(write.key);
      case 'append':
        return this.append(write.log, write.record);
      case 'addToSet':
        return this.addToSet(write.set, write.member);
      case 'removeFromSet':
        return this.removeFromSet(write.set, write.member);
      case 'release':
        return this.release(write.key, write.owner);
    }
  }

  async ping(): Promise<void> {}

  async close(): Promise<void> {}
}
