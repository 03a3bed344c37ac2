// The run lease: a run going on one replica makes another replica's tick and run-now skip, however long it runs,
// and a replica that died mid-run blocks its patrol for at most the lease.
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../agent/clock.js';
import { MemoryStore } from '../../agent/store/memory-store.js';
import { patrolKeys, patrolSlotKey } from '../../scheduled/patrol-keys.js';
import { runLeaseMs } from '../../scheduled/patrol-run-lease.js';
import {
  gate,
  type LogEntry,
  ManualTimers,
  minute,
  newScheduler,
  type RunRecord,
  settle,
  T0,
} from './patrol-rig.js';

function world() {
  const clock = new ManualClock(T0);
  return { clock, store: new MemoryStore(clock), runs: [] as RunRecord[], logs: [] as LogEntry[] };
}

describe('the patrol run lease', () => {
  it('is renewed while a long run goes, so another replica skips its next ticks, and released when it ends', async () => {
    const w = world();
    const timers = new ManualTimers();
    const held = gate();
    const a = newScheduler({ ...w, owner: 'a', timers, holdRuns: held.promise });
    const b = newScheduler({ ...w, owner: 'b' });
    const running = a.tick('disk', T0);
    await settle();
    // The run outlasts its lease twice over; the heartbeat keeps it.
    for (let elapsed = 0; elapsed < 2 * runLeaseMs + minute; elapsed += runLeaseMs / 3) {
      w.clock.advance(runLeaseMs / 3);
      timers.fire();
      await settle();
    }
    expect(await w.store.holder(patrolKeys.running('disk'))).toBe('a');
    expect(await b.tick('disk', T0 + 5 * minute)).toBe('overlap');
    expect(w.logs.find((entry) => entry.level === 'warn')?.fields).toMatchObject({
      patrol: 'disk',
      slot: '2026-01-01T12:05:00.000Z',
      running: 'on a',
    });
    // The skipped slot stays taken, so a third replica waking for it does not run it either.
    expect(await w.store.holder(patrolSlotKey('disk', T0 + 5 * minute))).toBe('b');
    expect(await b.runNow('disk')).toEqual({
      started: false,
      reason: 'patrol disk is already running (on a); it was not started again',
    });
    held.open();
    expect(await running).toBe('ran');
    expect(await w.store.holder(patrolKeys.running('disk'))).toBeUndefined();
    expect(await b.tick('disk', T0 + 10 * minute)).toBe('ran');
    expect(w.runs.map((run) => [run.owner, run.slot.at])).toEqual([
      ['a', T0],
      ['b', T0 + 10 * minute],
    ]);
  });

  it('left by a replica that died mid-run, blocks the patrol for at most the lease', async () => {
    const w = world();
    await w.store.claim(patrolKeys.running('disk'), 'dead', runLeaseMs);
    const scheduler = newScheduler({ ...w, owner: 'a' });
    expect(await scheduler.tick('disk', T0)).toBe('overlap');
    w.clock.advance(runLeaseMs + 1);
    expect(await scheduler.tick('disk', T0 + 5 * minute)).toBe('ran');
  });
});
