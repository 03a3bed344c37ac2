// The Redis Store, shared by every replica: keyv (@keyv/redis) for values, Lua and plain commands for the rest.
import KeyvRedis from '@keyv/redis';
import type { KeyvStoreAdapter, StoredData } from 'keyv';
import { formatDuration } from '../duration-text.js';
import { CallerError, ErrorCode, errorMessage, SystemError } from '../errors.js';
import type { Logger } from '../logger.js';
import { silentLogger } from '../logger.js';
import { maskUrlUserinfo } from '../url-userinfo.js';
import { CommandDeadlines } from './command-deadlines.js';
import { KeyvValues } from './keyv-values.js';
import { firstFailure, queuedWrite } from './redis-batch.js';
import { createRedisClient, type RedisClient, sha1 } from './redis-client.js';
import { RedisKeys } from './redis-keys.js';
import { claimScript, releaseScript } from './redis-scripts.js';
import { describeWrite, type IndexEntry, type Store, type StoreWrite } from './store.js';
import { redisWriteReason, StoreWriteError } from './store-write-error.js';

export interface RedisStoreOptions {
  /** Every key this store touches starts with it, so tests and tenants can share one Redis. */
  prefix?: string;
  logger?: Logger;
  /** How long the first connection, and each reconnection attempt, may take. */
  connectTimeoutMs?: number;
  /** How long one command may wait for an answer from a server that is up but not replying. */
  commandTimeoutMs?: number;
  /** The longest pause between reconnection attempts while Redis is down. */
  reconnectMaxDelayMs?: number;
}

export const redisStoreDefaults = {
  prefix: 'opsbot:',
  connectTimeoutMs: 2000,
  commandTimeoutMs: 2000,
  reconnectMaxDelayMs: 1000,
} satisfies Required<Omit<RedisStoreOptions, 'logger'>>;

export class RedisStore implements Store {
  readonly description: string;
  private readonly location: string;
  private readonly prefix: string;
  private readonly keys: RedisKeys;
  private readonly settings: typeof redisStoreDefaults;
  private readonly logger: Logger;
  private readonly client: RedisClient;
  private readonly values: KeyvValues;
  private reachable = false;
  private lastError: unknown;
  private closed = false;
  /** Each command's deadline (commandTimeoutMs), one timer for all of them. */
  private readonly deadlines: CommandDeadlines;
  private readonly noAnswer: () => Error;

  /** Connects, or fails with StoreUnavailable if Redis cannot be reached within connectTimeoutMs. */
  static async connect(url: string, options: RedisStoreOptions = {}): Promise<RedisStore> {
    const store = new RedisStore(url, options);
    await store.start();
    return store;
  }

  private constructor(url: string, options: RedisStoreOptions) {
    this.location = maskUrlUserinfo(url);
    this.prefix = options.prefix ?? redisStoreDefaults.prefix;
    this.keys = new RedisKeys(this.prefix);
    this.description = `redis ${this.location} (keys under "${this.prefix}")`;
    this.settings = {
      prefix: this.prefix,
      connectTimeoutMs: options.connectTimeoutMs ?? redisStoreDefaults.connectTimeoutMs,
      commandTimeoutMs: options.commandTimeoutMs ?? redisStoreDefaults.commandTimeoutMs,
      reconnectMaxDelayMs: options.reconnectMaxDelayMs ?? redisStoreDefaults.reconnectMaxDelayMs,
    };
    this.logger = (options.logger ?? silentLogger).child({ store: this.description });
    this.deadlines = new CommandDeadlines(this.settings.commandTimeoutMs);
    const waited = this.settings.commandTimeoutMs;
    this.noAnswer = () => new Error(`Redis gave no answer within ${formatDuration(waited)}`);
    try {
      this.client = createRedisClient(url, this.settings);
    } catch (error) {
      const message = `Invalid Redis URL ${this.location}: ${errorMessage(error)}`;
      throw new CallerError(ErrorCode.InvalidSettings, message, { cause: error });
    }
    this.client.on('error', (error: unknown) => {
      this.lastError = error;
      if (!this.reachable) return;
      this.reachable = false;
      this.logger.warn(
        { err: errorMessage(error) },
        'Redis store unreachable; reconnecting in the background',
      );
    });
    this.client.on('ready', () => {
      if (this.reachable) return;
      this.reachable = true;
      this.logger.info({}, 'Redis store connected');
    });
    const values = new KeyvRedis<string>(this.client, {
      namespace: `${this.prefix}kv`,
      keyPrefixSeparator: ':',
      throwOnErrors: true,
      throwOnConnectError: true,
    });
    // The client's own listener logs outages; this one only stops hookified from reporting them twice.
    values.on('error', () => {});
    this.values = new KeyvValues(this.guardedValues(values));
  }

  get<T>(key: string): Promise<T | undefined> {
    return this.values.get<T>(key);
  }

  set(key: string, value: unknown, ttlMs?: number): Promise<void> {
    return this.values.set(key, value, ttlMs);
  }

  delete(key: string): Promise<boolean> {
    return this.values.delete(key);
  }

  async claim(key: string, owner: string, ttlMs: number): Promise<boolean> {
    const ttl = String(Math.max(1, Math.ceil(ttlMs)));
    const reply = await this.run(
      `claim "${key}"`,
      () => this.script(claimScript, this.keys.claim(key), [owner, ttl]),
      { writing: true },
    );
    return reply === 1;
  }

  async release(key: string, owner: string): Promise<boolean> {
    const reply = await this.run(
      `release "${key}"`,
      () => this.script(releaseScript, this.keys.claim(key), [owner]),
      { writing: true },
    );
    return reply === 1;
  }

  async holder(key: string): Promise<string | undefined> {
    const owner = await this.run(`read the holder of "${key}"`, () => this.client.get(this.keys.claim(key)));
    return owner ?? undefined;
  }

  async append(log: string, record: unknown): Promise<void> {
    const json = JSON.stringify(record) ?? 'null';
    await this.run(`append to log "${log}"`, () => this.client.rPush(this.keys.log(log), json), {
      writing: true,
    });
  }

  async readLog<T>(log: string, options: { fromIndex?: number; limit?: number } = {}): Promise<T[]> {
    const from = Math.max(0, options.fromIndex ?? 0);
    // LRANGE counts a stop of -1 as "to the end", so an empty window must not reach Redis.
    if (options.limit !== undefined && options.limit <= 0) return [];
    const stop = options.limit === undefined ? -1 : from + options.limit - 1;
    const records = await this.run(`read log "${log}"`, () =>
      this.client.lRange(this.keys.log(log), from, stop),
    );
    return records.map((json) => JSON.parse(json) as T);
  }

  async addToSet(set: string, member: string): Promise<void> {
    await this.run(`add to set "${set}"`, () => this.client.sAdd(this.keys.set(set), member), {
      writing: true,
    });
  }

  async removeFromSet(set: string, member: string): Promise<void> {
    await this.run(`remove from set "${set}"`, () => this.client.sRem(this.keys.set(set), member), {
      writing: true,
    });
  }

  async members(set: string): Promise<string[]> {
    return this.run(`read set "${set}"`, () => this.client.sMembers(this.keys.set(set)));
  }

  async addToIndex(index: string, member: string, at: number): Promise<void> {
    await this.run(
      `add to index "${index}"`,
      () => this.client.zAdd(this.keys.index(index), { score: at, value: member }),
      { writing: true },
    );
  }

  async removeFromIndex(index: string, member: string): Promise<void> {
    await this.run(`remove from index "${index}"`, () => this.client.zRem(this.keys.index(index), member), {
      writing: true,
    });
  }

  /** ZRANGEBYSCORE with LIMIT: O(log n + limit), however many members the index holds. */
  async due(index: string, upTo: number, limit: number): Promise<IndexEntry[]> {
    if (limit <= 0) return [];
    const max = Number.isFinite(upTo) ? upTo : upTo > 0 ? '+inf' : '-inf';
    const entries = await this.run(`read index "${index}"`, () =>
      this.client.zRangeByScoreWithScores(this.keys.index(index), '-inf', max, {
        LIMIT: { offset: 0, count: Math.floor(limit) },
      }),
    );
    return entries.map((entry) => ({ member: entry.value, at: entry.score }));
  }

  /**
   * One MULTI/EXEC: the writes go in one round trip, and Redis runs them together, with no other client's command
   * in between and none of them left out by a crash of this process. Values are written as keyv writes them
   * (keyvText, under keyv's key), so `get` reads them back through keyv like any other.
   */
  async writeAll(writes: readonly StoreWrite[]): Promise<void> {
    if (writes.length === 0) return;
    // Serialized first: a value that is not JSON fails before anything is sent.
    const queue = writes.map((write) => queuedWrite(write, this.keys));
    await this.run(
      () => `write ${writes.map(describeWrite).join(', ')}`,
      async () => {
        const multi = this.client.multi();
        for (const add of queue) add(multi);
        try {
          await multi.exec();
        } catch (error) {
          throw firstFailure(error);
        }
      },
      { writing: true },
    );
  }

  async ping(): Promise<void> {
    await this.run('answer a ping', () => this.client.ping());
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    // close() waits for answers still owed; a client that is down owes none it can deliver.
    if (this.client.isReady) await this.client.close();
    else if (this.client.isOpen) this.client.destroy();
  }

  private async start(): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        const cause = this.lastError === undefined ? '' : ` (last error: ${errorMessage(this.lastError)})`;
        reject(new Error(`no connection within ${formatDuration(this.settings.connectTimeoutMs)}${cause}`));
      }, this.settings.connectTimeoutMs);
    });
    const connecting = this.client.connect();
    connecting.catch(() => {});
    try {
      await Promise.race([connecting, timedOut]);
    } catch (error) {
      this.closed = true;
      if (this.client.isOpen) this.client.destroy();
      throw this.unavailable('connect', error);
    } finally {
      clearTimeout(timer);
    }
  }

  // EVALSHA keeps the script off the wire; a server that restarted has forgotten it, so fall back to EVAL once.
  private async script(source: string, key: string, args: string[]): Promise<unknown> {
    const options = { keys: [key], arguments: args };
    try {
      return await this.client.evalSha(sha1(source), options);
    } catch (error) {
      if (!errorMessage(error).startsWith('NOSCRIPT')) throw error;
      return this.client.eval(source, options);
    }
  }

  /** `operation` names what failed; a batch's is a function, so its text is built only for an error. */
  private async run<T>(
    operation: string | (() => string),
    action: () => Promise<T>,
    options: { writing?: boolean } = {},
  ): Promise<T> {
    if (this.closed) throw this.unavailable(operation, new Error('the store is closed'), options);
    try {
      return await this.deadlines.watch(action(), this.noAnswer);
    } catch (error) {
      throw this.unavailable(operation, error, options);
    }
  }

  /** A write refused for a reason a person can act on (out of memory, a replica, Redis away) is a StoreWriteError. */
  private unavailable(
    operation: string | (() => string),
    error: unknown,
    options: { writing?: boolean } = {},
  ): SystemError {
    const what = typeof operation === 'string' ? operation : operation();
    const state =
      this.closed || this.client.isReady ? '' : ' (Redis is unreachable; reconnecting in the background)';
    const message = `Redis store at ${this.location} could not ${what}: ${errorMessage(error)}${state}`;
    const reason = options.writing
      ? this.closed
        ? 'the store is closed'
        : redisWriteReason(error, this.client.isReady)
      : undefined;
    if (reason) return new StoreWriteError(reason, message, { cause: error });
    return new SystemError(ErrorCode.StoreUnavailable, message, { cause: error });
  }

  /** keyv serializes and tracks TTLs; failures of the adapter underneath become StoreUnavailable here. */
  private guardedValues(values: KeyvRedis<string>): KeyvStoreAdapter {
    const adapter: KeyvStoreAdapter = {
      opts: { dialect: 'redis', url: this.location },
      get: <Value>(key: string) =>
        this.run(`read "${key}"`, () => values.get<string>(key)) as Promise<StoredData<Value> | undefined>,
      set: (key: string, value: string, ttl?: number) =>
        this.run(`write "${key}"`, () => values.set(key, value, ttl), { writing: true }),
      delete: (key: string) => this.run(`delete "${key}"`, () => values.delete(key), { writing: true }),
      clear: () => this.run('clear values', () => values.clear(), { writing: true }),
      on: () => adapter,
    };
    return adapter;
  }
}
