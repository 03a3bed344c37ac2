// The real node-cron path under fake timers: noOverlap and the run coordinator, with the slot key claimed in the Store.
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Clock } from '../../agent/clock.js';
import { MemoryStore } from '../../agent/store/memory-store.js';
import { patrolKeys, patrolSlotKey } from '../../scheduled/patrol-keys.js';
import type { PatrolScheduler } from '../../scheduled/patrol-scheduler.js';
import { gate, type LogEntry, minute, newScheduler, type RunRecord, scheduled, T0 } from './patrol-rig.js';

// node-cron reads Date and setTimeout itself, so the scheduler's clock is the faked Date too.
const fakedClock: Clock = { now: () => Date.now() };
let scheduler: PatrolScheduler | undefined;

afterEach(async () => {
  await scheduler?.stop();
  scheduler = undefined;
  vi.useRealTimers();
});

describe('PatrolScheduler on node-cron', () => {
  it('fires each slot through the coordinator, which claims patrol:<name>:<slot ms>', async () => {
    vi.useFakeTimers({ now: T0 - 2_000 });
    const store = new MemoryStore(fakedClock);
    const runs: RunRecord[] = [];
    scheduler = newScheduler({ store, owner: 'a', clock: fakedClock, runs });
    await scheduler.start();
    expect(scheduler.nextRunAt('disk')).toBe(T0);
    await vi.advanceTimersByTimeAsync(3_000);
    expect(runs).toEqual([{ owner: 'a', name: 'disk', slot: scheduled(T0) }]);
    expect(await store.holder(patrolSlotKey('disk', T0))).toBe('a');
    expect(await store.get(patrolKeys.lastSlot('disk'))).toBe(T0);
    await vi.advanceTimersByTimeAsync(5 * minute);
    expect(runs.map((run) => run.slot.at)).toEqual([T0, T0 + 5 * minute]);
    // Never released: the first slot is still held after its run and a whole interval more.
    expect(await store.holder(patrolSlotKey('disk', T0))).toBe('a');
  });

  it('skips a tick that finds the previous run still going, and warns with the patrol and the slot', async () => {
    vi.useFakeTimers({ now: T0 - 2_000 });
    const store = new MemoryStore(fakedClock);
    const runs: RunRecord[] = [];
    const logs: LogEntry[] = [];
    const held = gate();
    scheduler = newScheduler({ store, owner: 'a', clock: fakedClock, runs, logs, holdRuns: held.promise });
    await scheduler.start();
    await vi.advanceTimersByTimeAsync(3_000 + 5 * minute);
    expect(runs.map((run) => run.slot.at)).toEqual([T0]);
    const warning = logs.find((entry) => entry.level === 'warn');
    expect(warning).toMatchObject({
      message: 'patrol tick skipped: the previous run is still going',
      fields: { patrol: 'disk', slot: '2026-01-01T12:05:00.000Z' },
    });
    expect(logs.filter((entry) => entry.level === 'warn')).toHaveLength(1);
    // node-cron's own noOverlap guard stopped it (its message goes to debug; ours is the warning above).
    expect(logs).toContainEqual(
      expect.objectContaining({
        fields: expect.objectContaining({ source: 'node-cron' }),
        message: expect.stringMatching(/overlap/),
      }),
    );
    expect(await store.holder(patrolSlotKey('disk', T0 + 5 * minute))).toBeUndefined();
    held.open();
    await vi.advanceTimersByTimeAsync(5 * minute);
    expect(runs.map((run) => run.slot.at)).toEqual([T0, T0 + 10 * minute]);
  });

  it('lets only one of two schedulers on one Store run a slot both fire', async () => {
    vi.useFakeTimers({ now: T0 - 2_000 });
    const store = new MemoryStore(fakedClock);
    const runs: RunRecord[] = [];
    scheduler = newScheduler({ store, owner: 'a', clock: fakedClock, runs });
    const other = newScheduler({ store, owner: 'b', clock: fakedClock, runs });
    await Promise.all([scheduler.start(), other.start()]);
    await vi.advanceTimersByTimeAsync(3_000);
    await other.stop();
    expect(runs).toHaveLength(1);
    expect(await store.holder(patrolSlotKey('disk', T0))).toBe(runs[0]!.owner);
  });
});
