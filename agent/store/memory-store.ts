// An in-process Store for tests, benchmarks and throwaway runs: same contract, nothing survives the process.
import type { Clock } from '../clock.js';
import { systemClock } from '../clock.js';
import type { IndexEntry, Store, StoreWrite } from './store.js';

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
  private readonly indexes = new Map<string, Map<string, number>>();

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

  async set(key: string, value: unknown, ttlMs?: number, json = JSON.stringify(value)): Promise<void> {
    const expiresAt = ttlMs === undefined ? undefined : this.clock.now() + ttlMs;
    this.values.set(key, { json, expiresAt });
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

  async addToIndex(index: string, member: string, at: number): Promise<void> {
    let times = this.indexes.get(index);
    if (!times) {
      times = new Map();
      this.indexes.set(index, times);
    }
    times.set(member, at);
  }

  async removeFromIndex(index: string, member: string): Promise<void> {
    this.indexes.get(index)?.delete(member);
  }

  /** A scan: fine for tests and throwaway runs; the durable stores keep the index sorted. */
  async due(index: string, upTo: number, limit: number): Promise<IndexEntry[]> {
    const entries: IndexEntry[] = [];
    for (const [member, at] of this.indexes.get(index) ?? []) if (at <= upTo) entries.push({ member, at });
    entries.sort((a, b) => a.at - b.at || (a.member < b.member ? -1 : a.member > b.member ? 1 : 0));
    return entries.slice(0, Math.max(0, limit));
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
        return this.set(write.key, write.value, write.ttlMs, write.json ?? JSON.stringify(write.value));
      case 'delete':
        return this.delete(write.key);
      case 'append':
        return this.append(write.log, write.record);
      case 'deleteLog':
        this.logs.delete(write.log);
        return Promise.resolve();
      case 'addToSet':
        return this.addToSet(write.set, write.member);
      case 'removeFromSet':
        return this.removeFromSet(write.set, write.member);
      case 'addToIndex':
        return this.addToIndex(write.index, write.member, write.at);
      case 'removeFromIndex':
        return this.removeFromIndex(write.index, write.member);
      case 'release':
        return this.release(write.key, write.owner);
    }
  }

  async ping(): Promise<void> {}

  async close(): Promise<void> {}
}
