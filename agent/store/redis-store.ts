// The Redis Store, shared by every replica: keyv (@keyv/redis) for values, Lua and plain commands for the rest.
import KeyvRedis from '@keyv/redis';
import type { KeyvStoreAdapter, StoredData } from 'keyv';
import { CallerError, ErrorCode, errorMessage, SystemError } from '../errors.js';
import type { Logger } from '../logger.js';
import { silentLogger } from '../logger.js';
import { CommandDeadlines } from './command-deadlines.js';
import { KeyvValues, keyvText } from './keyv-values.js';
import { maskUrlPassword } from './mask-url-password.js';
import { createRedisClient, type RedisClient, sha1 } from './redis-client.js';
import { describeWrite, type IndexEntry, type Store, type StoreWrite } from './store.js';

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

// GET-compare-then-act must be one server-side step, or two replicas could both win.
const claimScript = `
local current = redis.call('GET', KEYS[1])
if current == ARGV[1] then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return 1
end
if current then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return 1`;

const releaseScript = `
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0`;

export class RedisStore implements Store {
  readonly description: string;
  private readonly location: string;
  private readonly prefix: string;
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
    this.location = maskUrlPassword(url);
    this.prefix = options.prefix ?? redisStoreDefaults.prefix;
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
    this.noAnswer = () => new Error(`Redis gave no answer within ${waited} ms`);
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
    const reply = await this.run(`claim "${key}"`, () =>
      this.script(claimScript, this.claimKey(key), [owner, ttl]),
    );
    return reply === 1;
  }

  async release(key: string, owner: string): Promise<boolean> {
    const reply = await this.run(`release "${key}"`, () =>
      this.script(releaseScript, this.claimKey(key), [owner]),
    );
    return reply === 1;
  }

  async holder(key: string): Promise<string | undefined> {
    const owner = await this.run(`read the holder of "${key}"`, () => this.client.get(this.claimKey(key)));
    return owner ?? undefined;
  }

  async append(log: string, record: unknown): Promise<void> {
    const json = JSON.stringify(record) ?? 'null';
    await this.run(`append to log "${log}"`, () => this.client.rPush(this.logKey(log), json));
  }

  async readLog<T>(log: string, options: { fromIndex?: number; limit?: number } = {}): Promise<T[]> {
    const from = Math.max(0, options.fromIndex ?? 0);
    // LRANGE counts a stop of -1 as "to the end", so an empty window must not reach Redis.
    if (options.limit !== undefined && options.limit <= 0) return [];
    const stop = options.limit === undefined ? -1 : from + options.limit - 1;
    const records = await this.run(`read log "${log}"`, () =>
      this.client.lRange(this.logKey(log), from, stop),
    );
    return records.map((json) => JSON.parse(json) as T);
  }

  async addToSet(set: string, member: string): Promise<void> {
    await this.run(`add to set "${set}"`, () => this.client.sAdd(this.setKey(set), member));
  }

  async removeFromSet(set: string, member: string): Promise<void> {
    await this.run(`remove from set "${set}"`, () => this.client.sRem(this.setKey(set), member));
  }

  async members(set: string): Promise<string[]> {
    return this.run(`read set "${set}"`, () => this.client.sMembers(this.setKey(set)));
  }

  async addToIndex(index: string, member: string, at: number): Promise<void> {
    await this.run(`add to index "${index}"`, () =>
      this.client.zAdd(this.indexKey(index), { score: at, value: member }),
    );
  }

  async removeFromIndex(index: string, member: string): Promise<void> {
    await this.run(`remove from index "${index}"`, () => this.client.zRem(this.indexKey(index), member));
  }

  /** ZRANGEBYSCORE with LIMIT: O(log n + limit), however many members the index holds. */
  async due(index: string, upTo: number, limit: number): Promise<IndexEntry[]> {
    if (limit <= 0) return [];
    const max = Number.isFinite(upTo) ? upTo : upTo > 0 ? '+inf' : '-inf';
    const entries = await this.run(`read index "${index}"`, () =>
      this.client.zRangeByScoreWithScores(this.indexKey(index), '-inf', max, {
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
    const queue = writes.map((write) => this.queued(write));
    await this.run(`write ${writes.map(describeWrite).join(', ')}`, async () => {
      const multi = this.client.multi();
      for (const add of queue) add(multi);
      try {
        await multi.exec();
      } catch (error) {
        throw firstFailure(error);
      }
    });
  }

  /** One write of a batch, serialized now, queued in the batch's MULTI later. */
  private queued(write: StoreWrite): (multi: RedisMulti) => void {
    switch (write.kind) {
      case 'set': {
        const key = this.valueKey(write.key);
        const ttlMs = write.ttlMs === undefined ? undefined : Math.ceil(write.ttlMs);
        // As KeyvValues.set: a TTL of zero or less means already gone.
        if (ttlMs !== undefined && ttlMs <= 0) return (multi) => multi.del(key);
        const text = keyvText(write.value, ttlMs, write.json);
        return (multi) => (ttlMs === undefined ? multi.set(key, text) : multi.set(key, text, { PX: ttlMs }));
      }
      case 'delete': {
        const key = this.valueKey(write.key);
        return (multi) => multi.del(key);
      }
      case 'append': {
        const key = this.logKey(write.log);
        const json = JSON.stringify(write.record) ?? 'null';
        return (multi) => multi.rPush(key, json);
      }
      case 'addToSet':
        return (multi) => multi.sAdd(this.setKey(write.set), write.member);
      case 'removeFromSet':
        return (multi) => multi.sRem(this.setKey(write.set), write.member);
      case 'addToIndex':
        return (multi) => multi.zAdd(this.indexKey(write.index), { score: write.at, value: write.member });
      case 'removeFromIndex':
        return (multi) => multi.zRem(this.indexKey(write.index), write.member);
      case 'release': {
        const options = { keys: [this.claimKey(write.key)], arguments: [write.owner] };
        // EVAL, not EVALSHA: inside a MULTI a forgotten script cannot be sent again.
        return (multi) => multi.eval(releaseScript, options);
      }
    }
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
        reject(new Error(`no connection within ${this.settings.connectTimeoutMs} ms${cause}`));
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

  private async run<T>(operation: string, action: () => Promise<T>): Promise<T> {
    if (this.closed) throw this.unavailable(operation, new Error('the store is closed'));
    try {
      return await this.deadlines.watch(action(), this.noAnswer);
    } catch (error) {
      throw this.unavailable(operation, error);
    }
  }

  private unavailable(operation: string, error: unknown): SystemError {
    const state =
      this.closed || this.client.isReady ? '' : ' (Redis is unreachable; reconnecting in the background)';
    return new SystemError(
      ErrorCode.StoreUnavailable,
      `Redis store at ${this.location} could not ${operation}: ${errorMessage(error)}${state}`,
      { cause: error },
    );
  }

  /** keyv serializes and tracks TTLs; failures of the adapter underneath become StoreUnavailable here. */
  private guardedValues(values: KeyvRedis<string>): KeyvStoreAdapter {
    const adapter: KeyvStoreAdapter = {
      opts: { dialect: 'redis', url: this.location },
      get: <Value>(key: string) =>
        this.run(`read "${key}"`, () => values.get<string>(key)) as Promise<StoredData<Value> | undefined>,
      set: (key: string, value: string, ttl?: number) =>
        this.run(`write "${key}"`, () => values.set(key, value, ttl)),
      delete: (key: string) => this.run(`delete "${key}"`, () => values.delete(key)),
      clear: () => this.run('clear values', () => values.clear()),
      on: () => adapter,
    };
    return adapter;
  }

  /** Where keyv keeps a value: its namespace, its separator, the key. */
  private valueKey(key: string): string {
    return `${this.prefix}kv:${key}`;
  }

  private claimKey(key: string): string {
    return `${this.prefix}claim:${key}`;
  }

  private logKey(log: string): string {
    return `${this.prefix}log:${log}`;
  }

  private setKey(set: string): string {
    return `${this.prefix}set:${set}`;
  }

  private indexKey(index: string): string {
    return `${this.prefix}index:${index}`;
  }
}

type RedisMulti = ReturnType<RedisClient['multi']>;

/** The first command of a batch that Redis refused (node-redis's MultiErrorReply lists them), or the error itself. */
function firstFailure(error: unknown): unknown {
  const replies = (error ?? {}) as { replies?: unknown[]; errorIndexes?: number[] };
  const index = replies.errorIndexes?.[0];
  return index === undefined ? error : (replies.replies?.[index] ?? error);
}
