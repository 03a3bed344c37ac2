// One scheduler on a memory Store, ticks driven by hand: overlap, pause, run-now, the slot claim's TTL, catch-up.
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../agent/clock.js';
import { MemoryStore } from '../../agent/store/memory-store.js';
import { patrolKeys, patrolSlotKey } from '../../scheduled/patrol-keys.js';
import {
  everyFiveMinutes,
  gate,
  type LogEntry,
  ManualTimers,
  minute,
  newScheduler,
  type RunRecord,
  scheduled,
  settle,
  T0,
} from './patrol-rig.js';

function world(start = T0) {
  const clock = new ManualClock(start);
  const store = new MemoryStore(clock);
  const runs: RunRecord[] = [];
  const logs: LogEntry[] = [];
  return { clock, store, runs, logs };
}

describe('PatrolScheduler ticks', () => {
  it('skips a tick while the previous run is still going, and logs a warning naming the patrol and the slot', async () => {
    const w = world();
    const held = gate();
    const scheduler = newScheduler({ ...w, owner: 'a', holdRuns: held.promise });
    const first = scheduler.tick('disk', T0);
    w.clock.advance(5 * minute);
    expect(await scheduler.tick('disk', T0 + 5 * minute)).toBe('overlap');
    const warning = w.logs.find((entry) => entry.level === 'warn');
    expect(warning?.message).toBe('patrol tick skipped: the previous run is still going');
    expect(warning?.fields).toMatchObject({ patrol: 'disk', slot: '2026-01-01T12:05:00.000Z' });
    held.open();
    expect(await first).toBe('ran');
    expect(w.runs).toEqual([{ owner: 'a', name: 'disk', slot: scheduled(T0) }]);
    // The skipped slot was not claimed, and the next one runs normally.
    expect(await w.store.holder(patrolSlotKey('disk', T0 + 5 * minute))).toBeUndefined();
    expect(await scheduler.tick('disk', T0 + 10 * minute)).toBe('ran');
  });

  it('skips the ticks of a paused patrol without claiming them', async () => {
    const w = world();
    let paused = true;
    const scheduler = newScheduler({ ...w, owner: 'a', isPaused: async () => paused });
    expect(await scheduler.tick('disk', T0)).toBe('paused');
    expect(w.runs).toEqual([]);
    expect(await w.store.holder(patrolSlotKey('disk', T0))).toBeUndefined();
    paused = false;
    expect(await scheduler.tick('disk', T0 + 5 * minute)).toBe('ran');
    expect(w.runs).toHaveLength(1);
  });

  it('runs a slot once on this replica even if node-cron and the catch-up both bring it', async () => {
    const w = world();
    const scheduler = newScheduler({ ...w, owner: 'a' });
    expect(await scheduler.tick('disk', T0)).toBe('ran');
    // The same owner's claim would succeed again (a refresh), so the scheduler itself must remember.
    expect(await scheduler.tick('disk', T0)).toBe('already-handled');
    expect(w.runs).toHaveLength(1);
  });

  it('logs a failing run and stays usable', async () => {
    const w = world();
    const scheduler = newScheduler({ ...w, owner: 'a', fail: true });
    expect(await scheduler.tick('disk', T0)).toBe('ran');
    expect(w.logs.find((entry) => entry.level === 'error')).toMatchObject({
      message: 'patrol run failed',
      fields: { patrol: 'disk', error: 'the checks blew up' },
    });
    expect(await scheduler.tick('disk', T0 + 5 * minute)).toBe('ran');
  });
});

describe('PatrolScheduler slot claims', () => {
  it('holds the slot for twice the interval: a late replica finds it taken, even a whole interval later', async () => {
    const w = world();
    const first = newScheduler({ ...w, owner: 'a' });
    const late = newScheduler({ ...w, owner: 'b' });
    expect(await first.tick('disk', T0)).toBe('ran');
    w.clock.advance(5 * minute);
    expect(await w.store.holder(patrolSlotKey('disk', T0))).toBe('a');
    expect(await late.tick('disk', T0)).toBe('taken');
    w.clock.set(T0 + 10 * minute - 1);
    expect(await w.store.holder(patrolSlotKey('disk', T0))).toBe('a');
    w.clock.set(T0 + 10 * minute + 1);
    expect(await w.store.holder(patrolSlotKey('disk', T0))).toBeUndefined();
    expect(w.runs.map((run) => run.owner)).toEqual(['a']);
  });

  it('holds a slot of a short schedule for at least a minute', async () => {
    const w = world();
    const scheduler = newScheduler({
      ...w,
      owner: 'a',
      patrols: { ping: { schedule: '*/10 * * * * *', timezone: 'UTC' } },
    });
    expect(await scheduler.tick('ping', T0)).toBe('ran');
    w.clock.advance(59_999);
    expect(await w.store.holder(patrolSlotKey('ping', T0))).toBe('a');
    w.clock.advance(2);
    expect(await w.store.holder(patrolSlotKey('ping', T0))).toBeUndefined();
  });
});

describe('PatrolScheduler run-now', () => {
  it('refuses a run-now while a run of the patrol is going, and says why', async () => {
    const w = world();
    const held = gate();
    const scheduler = newScheduler({ ...w, owner: 'a', holdRuns: held.promise });
    const tick = scheduler.tick('disk', T0);
    const refused = await scheduler.runNow('disk');
    expect(refused).toEqual({
      started: false,
      reason:
        'patrol disk is already running (the 2026-01-01T12:00:00.000Z slot, started 2026-01-01T12:00:00.000Z); ' +
        'it was not started again',
    });
    held.open();
    await tick;
    expect(w.runs).toHaveLength(1);
    expect(await scheduler.runNow('nope')).toEqual({
      started: false,
      reason: 'there is no patrol named "nope"',
    });
  });

  it('runs at once, marked manual, without taking the next slot; a tick meanwhile is skipped as overlap', async () => {
    const w = world(T0 + 2 * minute + 500);
    const held = gate();
    const scheduler = newScheduler({ ...w, owner: 'a', holdRuns: held.promise });
    const outcome = await scheduler.runNow('disk');
    expect(outcome.started).toBe(true);
    expect(w.runs).toEqual([
      { owner: 'a', name: 'disk', slot: { at: T0 + 2 * minute, late: false, manual: true } },
    ]);
    expect(await scheduler.tick('disk', T0 + 5 * minute)).toBe('overlap');
    held.open();
    if (outcome.started) await outcome.finished;
    expect(await w.store.get(patrolKeys.lastSlot('disk'))).toBeUndefined();
    expect(await scheduler.tick('disk', T0 + 10 * minute)).toBe('ran');
  });

  it('tells report footers when the next run is', () => {
    const w = world(T0 + 1000);
    const scheduler = newScheduler({ ...w, owner: 'a' });
    expect(scheduler.nextRunAt('disk')).toBe(T0 + 5 * minute);
    expect(scheduler.nextRunAt('nope')).toBeUndefined();
  });
});

describe('PatrolScheduler catch-up after downtime', () => {
  it('runs the latest missed slot once, labelled late, however many were missed', async () => {
    const w = world();
    await w.store.set(patrolKeys.lastSlot('disk'), T0);
    w.clock.set(T0 + 62 * minute); // twelve slots missed, the latest at 13:00
    const scheduler = newScheduler({ ...w, owner: 'a', patrols: { disk: everyFiveMinutes } });
    await scheduler.start();
    await scheduler.stop();
    expect(w.runs).toEqual([
      { owner: 'a', name: 'disk', slot: { at: T0 + 60 * minute, late: true, manual: false } },
    ]);
    expect(await w.store.get(patrolKeys.lastSlot('disk'))).toBe(T0 + 60 * minute);
    expect(w.logs.some((entry) => entry.message === 'patrol missed slots; one late run')).toBe(true);
  });

  it('runs nothing on a fresh install, but remembers where it started', async () => {
    const w = world(T0 + 62 * minute);
    const scheduler = newScheduler({ ...w, owner: 'a' });
    await scheduler.start();
    await scheduler.stop();
    expect(w.runs).toEqual([]);
    expect(await w.store.get(patrolKeys.lastSlot('disk'))).toBe(T0 + 60 * minute);
  });

  it('runs nothing when no slot was missed', async () => {
    const w = world(T0 + 4 * minute);
    await w.store.set(patrolKeys.lastSlot('disk'), T0);
    const scheduler = newScheduler({ ...w, owner: 'a' });
    await scheduler.start();
    await scheduler.stop();
    expect(w.runs).toEqual([]);
  });

  it('runs no catch-up for a paused patrol', async () => {
    const w = world(T0 + 62 * minute);
    await w.store.set(patrolKeys.lastSlot('disk'), T0);
    const scheduler = newScheduler({ ...w, owner: 'a', isPaused: () => true });
    await scheduler.start();
    await scheduler.stop();
    expect(w.runs).toEqual([]);
  });
});

describe('PatrolScheduler stop', () => {
  it('waits for a running run, but only up to its bound, and says which patrol was still going', async () => {
    const w = world();
    const timers = new ManualTimers();
    const held = gate();
    const scheduler = newScheduler({ ...w, owner: 'a', timers, holdRuns: held.promise });
    const running = scheduler.tick('disk', T0);
    await settle();
    let stopped = false;
    const stopping = scheduler.stop().then(() => {
      stopped = true;
    });
    await settle();
    expect(stopped).toBe(false);
    timers.fire();
    await stopping;
    expect(
      w.logs.find((entry) => entry.message === 'stopped while patrol runs were still going')?.fields,
    ).toMatchObject({
      patrols: ['disk'],
    });
    held.open();
    await running;
  });
});
