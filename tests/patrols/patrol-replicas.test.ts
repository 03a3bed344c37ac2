// Three replicas, each its own owner and its own Store connection, on one Redis and on one SQLite file: one run per slot.
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient } from '@redis/client';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../agent/clock.js';
import { RedisStore } from '../../agent/store/redis-store.js';
import { SqliteStore } from '../../agent/store/sqlite-store.js';
import type { Store } from '../../agent/store/store.js';
import { patrolKeys, patrolSlotKey } from '../../scheduled/patrol-keys.js';
import type { PatrolScheduler } from '../../scheduled/patrol-scheduler.js';
import { deleteRedisKeys, TEST_REDIS_URL } from '../store/redis-test-keys.js';
import { gate, minute, newScheduler, type RunRecord, settle, T0 } from './patrol-rig.js';

const redisPrefix = `opsbot-test:patrol-replicas:${process.pid}:${randomUUID().slice(0, 8)}:`;
let sqliteDirectory: string;
let worldCount = 0;
const openStores: Store[] = [];

beforeAll(async () => {
  sqliteDirectory = await mkdtemp(join(tmpdir(), 'opsbot-patrol-replicas-'));
});
afterEach(async () => {
  for (const store of openStores.splice(0)) await store.close();
});
afterAll(async () => {
  await deleteRedisKeys(redisPrefix);
  await rm(sqliteDirectory, { recursive: true, force: true });
});

/** Three connections to one backend, as three processes would have; `prefix` is where Redis keeps them. */
async function threeStores(
  backend: 'redis' | 'sqlite',
  clock: ManualClock,
): Promise<{ stores: Store[]; prefix: string }> {
  worldCount += 1;
  const prefix = `${redisPrefix}${worldCount}:`;
  const path = join(sqliteDirectory, `world-${worldCount}.sqlite`);
  const open = () =>
    backend === 'redis'
      ? RedisStore.connect(TEST_REDIS_URL, { prefix })
      : Promise.resolve(new SqliteStore(path, { clock }));
  const stores = [await open(), await open(), await open()];
  openStores.push(...stores);
  return { stores, prefix };
}

function replicas(
  stores: Store[],
  clock: ManualClock,
  runs: RunRecord[],
  holdRuns?: Promise<void>,
): PatrolScheduler[] {
  return stores.map((store, index) =>
    newScheduler({ store, owner: `replica-${index}`, clock, runs, holdRuns }),
  );
}

describe.each(['redis', 'sqlite'] as const)('three replicas on one %s', (backend) => {
  it('run a tick they all hit at once exactly once', async () => {
    const clock = new ManualClock(T0);
    const runs: RunRecord[] = [];
    const { stores } = await threeStores(backend, clock);
    const outcomes = await Promise.all(
      replicas(stores, clock, runs).map((replica) => replica.tick('disk', T0)),
    );
    expect(outcomes.filter((outcome) => outcome === 'ran')).toHaveLength(1);
    expect(outcomes.filter((outcome) => outcome === 'taken')).toHaveLength(2);
    expect(runs).toHaveLength(1);
    expect(await stores[0]!.holder(patrolSlotKey('disk', T0))).toBe(runs[0]!.owner);
  });

  it('leave a replica that wakes late, after the run finished, with nothing to run', async () => {
    const clock = new ManualClock(T0);
    const runs: RunRecord[] = [];
    const { stores } = await threeStores(backend, clock);
    const [first, second, third] = replicas(stores, clock, runs);
    expect(await first!.tick('disk', T0)).toBe('ran');
    clock.advance(4 * minute);
    expect(await second!.tick('disk', T0)).toBe('taken');
    expect(await third!.tick('disk', T0)).toBe('taken');
    expect(runs.map((run) => run.owner)).toEqual(['replica-0']);
  });

  it('skip a tick and refuse a run-now while another replica is still running the patrol', async () => {
    const clock = new ManualClock(T0);
    const runs: RunRecord[] = [];
    const held = gate();
    const { stores } = await threeStores(backend, clock);
    const [first] = replicas(stores.slice(0, 1), clock, runs, held.promise);
    const [, second] = replicas(stores, clock, runs);
    const running = first!.tick('disk', T0);
    while (runs.length === 0) await settle();
    expect(await second!.tick('disk', T0 + 5 * minute)).toBe('overlap');
    const refused = await second!.runNow('disk');
    expect(refused).toEqual({
      started: false,
      reason: expect.stringContaining('already running (on replica-0)'),
    });
    held.open();
    expect(await running).toBe('ran');
    expect(await second!.tick('disk', T0 + 10 * minute)).toBe('ran');
    expect(runs.map((run) => [run.owner, run.slot.at])).toEqual([
      ['replica-0', T0],
      ['replica-1', T0 + 10 * minute],
    ]);
  });

  it('make one late catch-up between them when all three start at once after downtime', async () => {
    const clock = new ManualClock(T0 + 62 * minute);
    const runs: RunRecord[] = [];
    const held = gate();
    const { stores } = await threeStores(backend, clock);
    await stores[0]!.set(patrolKeys.lastSlot('disk'), T0);
    const schedulers = replicas(stores, clock, runs, held.promise);
    await Promise.all(schedulers.map((scheduler) => scheduler.start()));
    held.open();
    await Promise.all(schedulers.map((scheduler) => scheduler.stop()));
    expect(runs).toHaveLength(1);
    expect(runs[0]!.slot).toEqual({ at: T0 + 60 * minute, late: true, manual: false });
  });

  it('make no catch-up on a fresh install', async () => {
    const clock = new ManualClock(T0 + 62 * minute);
    const runs: RunRecord[] = [];
    const { stores } = await threeStores(backend, clock);
    const schedulers = replicas(stores, clock, runs);
    await Promise.all(schedulers.map((scheduler) => scheduler.start()));
    await Promise.all(schedulers.map((scheduler) => scheduler.stop()));
    expect(runs).toEqual([]);
  });
});

describe('the slot claim on Redis', () => {
  it('is held with a TTL of twice the interval', async () => {
    const clock = new ManualClock(T0);
    const { stores, prefix } = await threeStores('redis', clock);
    const [scheduler] = replicas(stores, clock, []);
    expect(await scheduler!.tick('disk', T0)).toBe('ran');
    const admin = createClient({ url: TEST_REDIS_URL });
    await admin.connect();
    try {
      const ttl = await admin.pTTL(`${prefix}claim:${patrolSlotKey('disk', T0)}`);
      expect(ttl).toBeGreaterThan(10 * minute - 5_000);
      expect(ttl).toBeLessThanOrEqual(10 * minute);
    } finally {
      admin.destroy();
    }
  });
});
