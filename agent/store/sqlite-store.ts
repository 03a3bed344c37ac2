// The SQLite Store: one file that every process on a machine can share; keyv for values, one statement per primitive.
import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { KeyvStoreAdapter, StoredData } from 'keyv';
import type { Clock } from '../clock.js';
import { systemClock } from '../clock.js';
import { ErrorCode, errorMessage, OpsbotError, SystemError } from '../errors.js';
import { type Batch, GroupCommit } from './group-commit.js';
import { KeyvValues, keyvText } from './keyv-values.js';
import { type DatabaseSync, inTransaction, openDatabase, sqliteCode } from './sqlite-database.js';
import { migrate } from './sqlite-schema.js';
import { prepareStatements, type Statements } from './sqlite-statements.js';
import { describeWrite, type IndexEntry, type Store, type StoreWrite } from './store.js';
import { StoreWriteError, sqliteWriteReason } from './store-write-error.js';

export const defaultSqlitePath = './data/opsbot.sqlite';

export interface SqliteStoreOptions {
  /** Time for TTLs and claim expiry; tests pass a ManualClock. */
  clock?: Clock;
  /** How long a write waits for another process's lock before failing as StoreUnavailable. */
  busyTimeoutMs?: number;
}

// SQLite waits for a lock synchronously, stalling the event loop, so keep the wait short; writes take ms.
const defaultBusyTimeoutMs = 2000;

// Expired rows are invisible to reads but would pile up (dedupe keys, one-off approval claims); sweep now and then.
const writesBetweenSweeps = 1000;

export class SqliteStore implements Store {
  readonly description: string;
  private readonly db: DatabaseSync;
  private readonly statements: Statements;
  private readonly values: KeyvValues;
  private readonly writeBatch: (writes: readonly (() => void)[]) => void;
  private readonly group: GroupCommit;
  private readonly clock: Clock;
  private writesSinceSweep = 0;

  constructor(
    readonly path: string = defaultSqlitePath,
    options: SqliteStoreOptions = {},
  ) {
    this.description = `sqlite ${path}`;
    this.clock = options.clock ?? systemClock;
    let db: DatabaseSync | undefined;
    try {
      mkdirSync(dirname(resolve(path)), { recursive: true });
      db = openDatabase(path);
      // Busy timeout first: the WAL switch itself needs a lock another process may hold.
      db.exec(
        `PRAGMA busy_timeout = ${Math.max(0, Math.floor(options.busyTimeoutMs ?? defaultBusyTimeoutMs))}`,
      );
      db.exec('PRAGMA journal_mode = WAL');
      db.exec('PRAGMA synchronous = NORMAL');
      migrate(db, path);
      this.db = db;
      this.statements = prepareStatements(db);
      this.sweep();
    } catch (error) {
      db?.close();
      if (error instanceof OpsbotError) throw error;
      throw new SystemError(
        ErrorCode.StoreUnavailable,
        `Cannot open the SQLite store at ${path}: ${errorMessage(error)}`,
        { cause: error },
      );
    }
    const rows: ValueRows = {
      read: (key) => this.readValue(key),
      write: (key, value, ttlMs) => this.writeValue(key, value, ttlMs),
      remove: (key) => this.deleteValue(key),
      clear: () => this.run('clear values', () => this.statements.valueClear.run()),
    };
    this.values = new KeyvValues(new SqliteKeyvAdapter(rows));
    const database = this.db;
    this.writeBatch = (writes) =>
      inTransaction(database, () => {
        for (const write of writes) write();
      });
    const commitAll = (batches: readonly Batch[]) =>
      inTransaction(database, () => {
        for (const batch of batches) for (const write of batch) write();
      });
    this.group = new GroupCommit((batches) =>
      this.write(`write ${batches.length} batches at once`, () => commitAll(batches)),
    );
  }

  get<T>(key: string): Promise<T | undefined> {
    return this.values.get<T>(key);
  }

  set(key: string, value: unknown, ttlMs?: number): Promise<void> {
    // Written as keyv writes a value (keyvText), and read back through keyv, but committed with the group.
    return this.writeAll([{ kind: 'set', key, value, ...(ttlMs === undefined ? {} : { ttlMs }) }]);
  }

  /** Reports whether a live value was removed, as Redis would. */
  delete(key: string): Promise<boolean> {
    return this.grouped(`delete "${key}"`, () => {
      const row = this.statements.valueDelete.get(key);
      return row !== undefined && (row.expires === null || row.expires > this.clock.now());
    });
  }

  claim(key: string, owner: string, ttlMs: number): Promise<boolean> {
    return this.grouped(`claim "${key}"`, () => {
      // Read when the claim is made, inside the group's transaction, not when it was asked for.
      const now = this.clock.now();
      return this.statements.claim.run({ key, owner, expires: now + ttlMs, now }).changes === 1;
    });
  }

  release(key: string, owner: string): Promise<boolean> {
    return this.grouped(`release "${key}"`, () => this.statements.release.run(key, owner).changes === 1);
  }

  async holder(key: string): Promise<string | undefined> {
    return this.run(`read the holder of "${key}"`, () => this.statements.holder.get(key, this.clock.now()))
      ?.owner;
  }

  append(log: string, record: unknown): Promise<void> {
    return this.writeAll([{ kind: 'append', log, record }]);
  }

  async readLog<T>(log: string, options: { fromIndex?: number; limit?: number } = {}): Promise<T[]> {
    const offset = Math.max(0, options.fromIndex ?? 0);
    const limit = options.limit === undefined ? -1 : Math.max(0, options.limit);
    const rows = this.run(`read log "${log}"`, () => this.statements.readLog.all(log, limit, offset));
    return rows.map((row) => JSON.parse(row.record) as T);
  }

  addToSet(set: string, member: string): Promise<void> {
    return this.writeAll([{ kind: 'addToSet', set, member }]);
  }

  removeFromSet(set: string, member: string): Promise<void> {
    return this.writeAll([{ kind: 'removeFromSet', set, member }]);
  }

  async members(set: string): Promise<string[]> {
    return this.run(`read set "${set}"`, () => this.statements.members.all(set)).map((row) => row.member);
  }

  addToIndex(index: string, member: string, at: number): Promise<void> {
    return this.writeAll([{ kind: 'addToIndex', index, member, at }]);
  }

  removeFromIndex(index: string, member: string): Promise<void> {
    return this.writeAll([{ kind: 'removeFromIndex', index, member }]);
  }

  async due(index: string, upTo: number, limit: number): Promise<IndexEntry[]> {
    if (limit <= 0) return [];
    // SQLite has no infinity for an INTEGER column to compare with; the largest double stands in for it.
    const bound = Number.isFinite(upTo) ? upTo : upTo > 0 ? Number.MAX_VALUE : -Number.MAX_VALUE;
    return this.run(`read index "${index}"`, () => this.statements.due.all(index, bound, Math.floor(limit)));
  }

  /**
   * One transaction: one lock and one commit for all of them, which is most of what a small write costs; and the
   * batches of concurrent callers share one (GroupCommit), committed at the end of this turn of the event loop.
   */
  async writeAll(writes: readonly StoreWrite[]): Promise<void> {
    if (writes.length === 0) return;
    // Serialized first: a value that is not JSON fails before anything is written.
    const statements = writes.map((write) => this.statementFor(write));
    return this.commit(statements, () => `write ${writes.map(describeWrite).join(', ')}`);
  }

  async ping(): Promise<void> {
    this.run('answer a ping', () => this.statements.ping.get());
  }

  async close(): Promise<void> {
    if (!this.db.isOpen) return;
    // Batches asked for before the close are written, as they would have been before group commit.
    this.group.flush();
    this.db.close();
  }

  /** One write of a batch, serialized now and run inside the batch's transaction. */
  private statementFor(write: StoreWrite): () => void {
    const { statements } = this;
    switch (write.kind) {
      case 'set': {
        const ttlMs = write.ttlMs === undefined ? undefined : Math.ceil(write.ttlMs);
        // As KeyvValues.set: a TTL of zero or less means already gone.
        if (ttlMs !== undefined && ttlMs <= 0) return () => statements.valueDelete.get(write.key);
        // Stored as keyv stores a value, so get reads it back through keyv like any other.
        const text = keyvText(write.value, ttlMs, write.json);
        return () =>
          statements.valueSet.run(write.key, text, ttlMs === undefined ? null : this.clock.now() + ttlMs);
      }
      case 'delete':
        return () => statements.valueDelete.get(write.key);
      case 'append': {
        const json = JSON.stringify(write.record) ?? 'null';
        return () => statements.append.run(write.log, json);
      }
      case 'deleteLog':
        return () => statements.deleteLog.run(write.log);
      case 'addToSet':
        return () => statements.addToSet.run(write.set, write.member);
      case 'removeFromSet':
        return () => statements.removeFromSet.run(write.set, write.member);
      case 'addToIndex':
        return () => statements.addToIndex.run(write.index, write.member, write.at);
      case 'removeFromIndex':
        return () => statements.removeFromIndex.run(write.index, write.member);
      case 'release':
        return () => statements.release.run(write.key, write.owner);
    }
  }

  /** One write whose result the caller needs (a claim won, a value removed), committed with the group. */
  private async grouped<T>(operation: string, action: () => T): Promise<T> {
    let result: T | undefined;
    await this.commit([() => (result = action())], () => operation);
    return result as T;
  }

  /**
   * Commits a batch with the others asked for in this turn of the event loop (GroupCommit). A closed store fails
   * at once, as every read does, rather than at the end of the turn.
   */
  private commit(batch: Batch, operation: () => string): Promise<void> {
    const alone = () => this.write(operation(), () => this.writeBatch(batch));
    if (!this.db.isOpen) return Promise.resolve().then(alone);
    return this.group.add(batch, alone);
  }

  private readValue(key: string): string | undefined {
    return this.run(`read "${key}"`, () => this.statements.valueGet.get(key, this.clock.now()))?.value;
  }

  private writeValue(key: string, value: string, ttlMs: number | undefined): void {
    const expires = ttlMs === undefined ? null : this.clock.now() + ttlMs;
    this.write(`write "${key}"`, () => this.statements.valueSet.run(key, value, expires));
  }

  /** Reports whether a live value was removed, as Redis would. */
  private deleteValue(key: string): boolean {
    const row = this.run(`delete "${key}"`, () => this.statements.valueDelete.get(key));
    return row !== undefined && (row.expires === null || row.expires > this.clock.now());
  }

  private write<T>(operation: string, action: () => T): T {
    const result = this.run(operation, action, { writing: true });
    this.writesSinceSweep += 1;
    if (this.writesSinceSweep >= writesBetweenSweeps) this.sweep();
    return result;
  }

  private sweep(): void {
    this.writesSinceSweep = 0;
    const now = this.clock.now();
    this.run('sweep expired rows', () => {
      this.statements.sweepValues.run(now);
      this.statements.sweepClaims.run(now);
    });
  }

  /**
   * Every failure below this line is the database's (locked, closed, disk, corrupt), so it is the system's fault.
   * A write refused for a reason a person can act on (a full disk, a read-only file) is a StoreWriteError.
   */
  private run<T>(operation: string, action: () => T, options: { writing?: boolean } = {}): T {
    try {
      return action();
    } catch (error) {
      const named = sqliteCode(error);
      const code = named ? ` (${named})` : '';
      const state = this.db.isOpen ? '' : ' (the store is closed)';
      const message = `SQLite store ${this.path} could not ${operation}: ${errorMessage(error)}${code}${state}`;
      const reason = options.writing
        ? (sqliteWriteReason(named) ?? (this.db.isOpen ? undefined : 'the store is closed'))
        : undefined;
      if (reason) throw new StoreWriteError(reason, message, { cause: error });
      throw new SystemError(ErrorCode.StoreUnavailable, message, { cause: error });
    }
  }
}

/** The value rows as the keyv adapter sees them, already bound to the store's clock and error mapping. */
interface ValueRows {
  read(key: string): string | undefined;
  write(key: string, value: string, ttlMs: number | undefined): void;
  remove(key: string): boolean;
  clear(): void;
}

/** Lets keyv do serialization and TTL bookkeeping while the rows live in the same database as everything else. */
class SqliteKeyvAdapter implements KeyvStoreAdapter {
  readonly opts = { dialect: 'sqlite' };
  namespace?: string;

  constructor(private readonly rows: ValueRows) {}

  async get<Value>(key: string): Promise<StoredData<Value> | undefined> {
    return this.rows.read(key) as StoredData<Value> | undefined;
  }

  async set(key: string, value: string, ttl?: number): Promise<void> {
    this.rows.write(key, value, ttl);
  }

  async delete(key: string): Promise<boolean> {
    return this.rows.remove(key);
  }

  async clear(): Promise<void> {
    this.rows.clear();
  }

  on(): this {
    return this;
  }
}
