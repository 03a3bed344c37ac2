// The expiry sweep reads what is due from the wait-expiry index: it expires exactly the due waits, reads no
// other run, sleeps until the next expiry, repairs stale entries, and indexes waits saved before the index.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ManualClock } from '../../agent/clock.js';
import { Kernel } from '../../agent/kernel.js';
import type { Run } from '../../agent/run.js';
import { MemoryStore } from '../../agent/store/memory-store.js';
import { SqliteStore } from '../../agent/store/sqlite-store.js';
import type { Store } from '../../agent/store/store.js';
import { storeKeys } from '../../agent/store/store-keys.js';
import { ManualTimers } from '../manual-timers.js';
import { countingStore, runRecordsRead, type StoreCall } from '../store/counting-store.js';
import { sampleRuns } from './run-machine-samples.js';

const INTERVAL_MS = 10_000;
const HOUR_MS = 3_600_000;

interface World {
  clock: ManualClock;
  timers: ManualTimers;
  store: Store;
  calls: StoreCall[];
  kernel: Kernel;
}

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function makeWorld(backend: 'memory' | 'sqlite'): World {
  const clock = new ManualClock();
  const timers = new ManualTimers();
  let inner: Store = new MemoryStore(clock);
  if (backend === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'opsbot-expiry-sweep-'));
    inner = new SqliteStore(join(dir, 'opsbot.sqlite'), { clock });
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  }
  cleanups.push(() => inner.close());
  const calls: StoreCall[] = [];
  const store = countingStore(inner, calls);
  const kernel = new Kernel({ store, tools: [], clock, limits: { expirySweepMs: INTERVAL_MS } });
  return { clock, timers, store, calls, kernel };
}

/** A run waiting for an answer until `expiresAt`, alone in its thread. */
function waitingRun(id: string, expiresAt: number): Run {
  const sample = sampleRuns.waiting_for_user;
  return {
    ...sample,
    id,
    conversation: { ...sample.conversation, threadId: id },
    question: { ...sample.question, expiresAt },
  };
}

async function seed(world: World, due: number, later: number): Promise<{ dueIds: string[] }> {
  const now = world.clock.now();
  const dueIds: string[] = [];
  for (let index = 0; index < due; index++) {
    dueIds.push(`run_due_${index}`);
    await world.kernel.runs.create(waitingRun(`run_due_${index}`, now + 1000 + index));
  }
  for (let index = 0; index < later; index++) {
    await world.kernel.runs.create(waitingRun(`run_later_${index}`, now + 24 * HOUR_MS + index));
  }
  return { dueIds };
}

async function statusOf(world: World, runId: string): Promise<string | undefined> {
  return (await world.kernel.runs.find(runId))?.status;
}

describe.each(['memory', 'sqlite'] as const)('expiry sweep on %s', (backend) => {
  it('expires exactly the due waits and reads no other run, nor the waiting set', async () => {
    const world = makeWorld(backend);
    // More due than the sweep expires at once (16), so it takes several waves.
    const { dueIds } = await seed(world, 40, 200);
    const sweep = world.kernel.expirySweep(world.timers);
    await sweep.sweep(); // the first pass backfills once (nothing to do here)
    world.clock.advance(2000);
    world.calls.length = 0;

    expect(await sweep.sweep()).toBe(40);

    expect(runRecordsRead(world.calls)).toEqual(new Set(dueIds));
    expect(world.calls.filter((call) => call.method === 'members')).toEqual([]);
    for (const runId of dueIds) expect(await statusOf(world, runId)).toBe('expired');
    expect(await statusOf(world, 'run_later_0')).toBe('waiting_for_user');
    // Expired runs left the index in the same batch as their save.
    const left = await world.store.due(storeKeys.waitExpiry, Number.POSITIVE_INFINITY, 1000);
    expect(left).toHaveLength(200);
    expect(left.every((entry) => entry.member.startsWith('run_later_'))).toBe(true);
  });

  it('costs the same few calls with 2 waiting runs as with 400 when nothing is due', async () => {
    const callsOfAPass = async (later: number) => {
      const world = makeWorld(backend);
      await seed(world, 0, later);
      const sweep = world.kernel.expirySweep(world.timers);
      await sweep.sweep();
      await sweep.sweep();
      world.calls.length = 0;
      expect(await sweep.sweep()).toBe(0);
      return world.calls.map((call) => call.method);
    };
    const few = await callsOfAPass(2);
    expect(await callsOfAPass(400)).toEqual(few);
    expect(few).toEqual(['due', 'due']);
  });

  it('sleeps until the next expiry, or its interval when that is sooner', async () => {
    const world = makeWorld(backend);
    const now = world.clock.now();
    await world.kernel.runs.create(waitingRun('run_soon', now + 3000));
    await world.kernel.runs.create(waitingRun('run_late', now + HOUR_MS));
    const sweep = world.kernel.expirySweep(world.timers);
    sweep.start();
    cleanups.push(() => sweep.stop());
    const nextDelay = async () => {
      world.timers.fire();
      await vi.waitFor(() => expect(world.timers.pending.size).toBe(1));
      return [...world.timers.delays.values()][0];
    };

    expect(await nextDelay()).toBe(3000);
    world.clock.advance(3000);
    expect(await nextDelay()).toBe(INTERVAL_MS);
    expect(await statusOf(world, 'run_soon')).toBe('expired');
    expect(await statusOf(world, 'run_late')).toBe('waiting_for_user');
  });

  it('leaves a wait it cannot expire for its next interval instead of trying it again at once', async () => {
    const world = makeWorld(backend);
    const now = world.clock.now();
    // With no approvals configured, the kernel cannot close this approval: expire answers false.
    const sample = sampleRuns.waiting_for_approval;
    const stuck: Run = {
      ...sample,
      id: 'run_stuck',
      approval: { ...sample.approval, expiresAt: now + 1000 },
    };
    await world.kernel.runs.create(stuck);
    await world.kernel.runs.create(waitingRun('run_later', now + 5000));
    world.clock.advance(1000);
    const sweep = world.kernel.expirySweep(world.timers);
    sweep.start();
    cleanups.push(() => sweep.stop());
    world.timers.fire();
    await vi.waitFor(() => expect(world.timers.pending.size).toBe(1));

    // Not 0 for the stuck one: the next wake is the next expiry still to come.
    expect([...world.timers.delays.values()]).toEqual([4000]);
    expect(await statusOf(world, 'run_stuck')).toBe('waiting_for_approval');
  });

  it('removes an entry whose run no longer waits, and moves one whose wait was extended', async () => {
    const world = makeWorld(backend);
    const now = world.clock.now();
    await world.kernel.runs.create(waitingRun('run_gone', now + 1000));
    await world.kernel.runs.create(waitingRun('run_extended', now + 1000));
    // Another process (or a crash between writes) changed these records without their index entries.
    await world.store.set(storeKeys.run('run_gone'), { ...sampleRuns.finished, id: 'run_gone' });
    await world.store.set(storeKeys.run('run_extended'), waitingRun('run_extended', now + HOUR_MS));
    world.clock.advance(1000);
    const sweep = world.kernel.expirySweep(world.timers);

    expect(await sweep.sweep()).toBe(0);

    expect(await world.store.due(storeKeys.waitExpiry, Number.POSITIVE_INFINITY, 10)).toEqual([
      { member: 'run_extended', at: now + HOUR_MS },
    ]);
    expect(await statusOf(world, 'run_extended')).toBe('waiting_for_user');
  });
});

describe('expiry sweep after an upgrade', () => {
  it('indexes runs that waited before the index existed, once, and expires the due one', async () => {
    const world = makeWorld('sqlite');
    const now = world.clock.now();
    // As the code before the index saved a waiting run: the record and the two sets, no index entry.
    for (const [id, expiresAt] of [
      ['run_old_due', now + 1000],
      ['run_old_later', now + HOUR_MS],
    ] as const) {
      await world.store.writeAll([
        { kind: 'addToSet', set: storeKeys.activeRuns, member: id },
        { kind: 'addToSet', set: storeKeys.waitingRuns, member: id },
        { kind: 'set', key: storeKeys.run(id), value: waitingRun(id, expiresAt) },
      ]);
    }
    world.clock.advance(1000);
    const sweep = world.kernel.expirySweep(world.timers);

    expect(await sweep.sweep()).toBe(1);
    expect(await statusOf(world, 'run_old_due')).toBe('expired');
    expect(await world.store.due(storeKeys.waitExpiry, Number.POSITIVE_INFINITY, 10)).toEqual([
      { member: 'run_old_later', at: now + HOUR_MS },
    ]);
    expect(await world.store.get(storeKeys.waitExpiryBackfilled)).toEqual({ indexed: 2 });

    // Another process's sweep, or this one after a restart, finds the marker and reads no waiting set.
    world.calls.length = 0;
    await world.kernel.expirySweep(world.timers).sweep();
    expect(world.calls.filter((call) => call.method === 'members')).toEqual([]);
  });
});
