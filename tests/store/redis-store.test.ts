// The Redis Store: the shared contract against a real server, its key layout and TTLs, and its outage behaviour.
import { randomUUID } from 'node:crypto';
import { createClient } from '@keyv/redis';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ErrorCode, OpsbotError } from '../../agent/errors.js';
import { RedisStore } from '../../agent/store/redis-store.js';
import { runBreakerContract } from './breaker-contract.js';
import { TEST_REDIS_URL } from './redis-test-keys.js';
import { runStoreContract, type StoreFixture } from './store-contract.js';

const redisUrl = TEST_REDIS_URL;
// Unique per run and per test file, so parallel runs and other suites never see each other's keys.
const filePrefix = `opsbot-test:redis-store:${process.pid}:${randomUUID().slice(0, 8)}:`;

type AdminClient = ReturnType<typeof createClient>;
let admin: AdminClient;

async function keysUnder(prefix: string): Promise<string[]> {
  const keys: string[] = [];
  for await (const batch of admin.scanIterator({ MATCH: `${prefix}*`, COUNT: 500 })) keys.push(...batch);
  return keys;
}

async function deleteKeysUnder(prefix: string): Promise<void> {
  const keys = await keysUnder(prefix);
  if (keys.length > 0) await admin.del(keys);
}

beforeAll(async () => {
  admin = createClient({ url: redisUrl });
  await admin.connect();
});

afterAll(async () => {
  await deleteKeysUnder(filePrefix);
  await admin.close();
});

let fixtureCount = 0;
async function redisFixture(): Promise<StoreFixture> {
  fixtureCount += 1;
  const prefix = `${filePrefix}contract-${fixtureCount}:`;
  const store = await RedisStore.connect(redisUrl, { prefix });
  return {
    store,
    reopen: () => RedisStore.connect(redisUrl, { prefix }),
    cleanup: async () => {
      await store.close();
      await deleteKeysUnder(prefix);
    },
  };
}
runStoreContract('redis', redisFixture);
runBreakerContract('redis', redisFixture);

describe('Redis store keys and TTLs', () => {
  const prefix = `${filePrefix}layout:`;
  let store: RedisStore;

  beforeEach(async () => {
    store = await RedisStore.connect(redisUrl, { prefix });
  });

  afterEach(async () => {
    await store.close();
    await deleteKeysUnder(prefix);
  });

  it('keeps every key under its prefix, one namespace per kind', async () => {
    await store.set('run:1', { status: 'running' });
    await store.claim('approval:1', 'alice', 60_000);
    await store.append('run:1:events', 'started');
    await store.addToSet('runs:waiting', 'run:1');
    await store.addToIndex('runs:expiry', 'run:1', 1000);
    expect((await keysUnder(prefix)).sort()).toEqual([
      `${prefix}claim:approval:1`,
      `${prefix}index:runs:expiry`,
      `${prefix}kv:run:1`,
      `${prefix}log:run:1:events`,
      `${prefix}set:runs:waiting`,
    ]);
    expect(store.description).toBe(`redis ${redisUrl} (keys under "${prefix}")`);
  });

  it('keeps a time index as a sorted set scored by time', async () => {
    await store.addToIndex('runs:expiry', 'run:1', 1000);
    expect(await admin.type(`${prefix}index:runs:expiry`)).toBe('zset');
    expect(await admin.zScore(`${prefix}index:runs:expiry`, 'run:1')).toBe(1000);
  });

  it('hands value TTLs to Redis', async () => {
    await store.set('short', 'x', 60_000);
    await store.set('forever', 'y');
    const remaining = await admin.pTTL(`${prefix}kv:short`);
    expect(remaining).toBeGreaterThan(55_000);
    expect(remaining).toBeLessThanOrEqual(60_000);
    expect(await admin.pTTL(`${prefix}kv:forever`)).toBe(-1);
  });

  it('makes a batch one MULTI/EXEC, its values readable through keyv, TTLs and releases included', async () => {
    await store.claim('lease:1', 'worker-a', 60_000);
    const execs = async () =>
      Number(/cmdstat_exec:calls=(\d+)/.exec(await admin.info('commandstats'))?.[1] ?? 0);
    const before = await execs();
    await store.writeAll([
      { kind: 'append', log: 'thread:1', record: 'run:1' },
      { kind: 'addToSet', set: 'runs:active', member: 'run:1' },
      { kind: 'addToIndex', index: 'runs:expiry', member: 'run:1', at: 5000 },
      {
        kind: 'set',
        key: 'run:1',
        value: { status: 'running', step: 2 },
        json: '{"step":2,"status":"running"}',
      },
      { kind: 'set', key: 'post:1', value: { messageId: 'm1' }, ttlMs: 60_000 },
      { kind: 'set', key: 'gone', value: 'x', ttlMs: 0 },
      { kind: 'release', key: 'lease:1', owner: 'worker-a' },
    ]);
    expect((await execs()) - before).toBe(1);
    expect(await store.get('run:1')).toEqual({ status: 'running', step: 2 });
    expect(await store.get('post:1')).toEqual({ messageId: 'm1' });
    expect(await admin.pTTL(`${prefix}kv:post:1`)).toBeGreaterThan(55_000);
    expect(await store.get('gone')).toBeUndefined();
    expect(await store.readLog('thread:1')).toEqual(['run:1']);
    expect(await store.members('runs:active')).toEqual(['run:1']);
    expect(await store.due('runs:expiry', 5000, 10)).toEqual([{ member: 'run:1', at: 5000 }]);
    expect(await store.holder('lease:1')).toBeUndefined();
  });

  it('reports the command Redis refused in a batch, naming the batch, and keeps the rest written', async () => {
    await admin.set(`${prefix}set:runs:active`, 'not a set');
    const error = await store
      .writeAll([
        { kind: 'set', key: 'run:2', value: { status: 'queued' } },
        { kind: 'addToSet', set: 'runs:active', member: 'run:2' },
      ])
      .then(
        () => undefined,
        (thrown: unknown) => thrown,
      );
    expect(error).toBeInstanceOf(OpsbotError);
    expect((error as OpsbotError).code).toBe(ErrorCode.StoreUnavailable);
    expect((error as Error).message).toContain('could not write set "run:2", addToSet "runs:active"');
    expect((error as Error).message).toContain('WRONGTYPE');
    expect(await store.get('run:2')).toEqual({ status: 'queued' });
  });

  it('refreshes the TTL of a claim its owner takes again, and not for anyone else', async () => {
    await store.claim('lock', 'alice', 1000);
    expect(await admin.pTTL(`${prefix}claim:lock`)).toBeLessThanOrEqual(1000);
    expect(await store.claim('lock', 'bob', 60_000)).toBe(false);
    expect(await admin.pTTL(`${prefix}claim:lock`)).toBeLessThanOrEqual(1000);
    expect(await store.claim('lock', 'alice', 60_000)).toBe(true);
    expect(await admin.pTTL(`${prefix}claim:lock`)).toBeGreaterThan(55_000);
  });
});

describe('Redis store start-up', () => {
  it('fails fast with StoreUnavailable naming the URL, password masked, when nothing listens', async () => {
    const url = 'redis://:hunter2@127.0.0.1:1';
    const started = Date.now();
    const error = await RedisStore.connect(url, { connectTimeoutMs: 300 }).then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(Date.now() - started).toBeLessThan(2000);
    expect(error).toBeInstanceOf(OpsbotError);
    expect((error as OpsbotError).code).toBe(ErrorCode.StoreUnavailable);
    expect((error as Error).message).toContain('redis://***@127.0.0.1:1');
    expect((error as Error).message).not.toContain('hunter2');
    expect((error as Error).message).toContain('ECONNREFUSED');
  });
});
