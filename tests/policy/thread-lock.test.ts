// One active run per thread: the lock is held by a run id, released only by its holder, and lapses with its TTL.
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../agent/clock.js';
import { ThreadLock } from '../../agent/policy/thread-lock.js';
import { MemoryStore } from '../../agent/store/memory-store.js';
import { slackChannel } from './policy-fixtures.js';

function setup() {
  const clock = new ManualClock();
  return { clock, lock: new ThreadLock(new MemoryStore(clock), 60_000) };
}

describe('ThreadLock', () => {
  const thread = slackChannel('C1', '1.1');

  it('lets one run hold a thread and tells others who holds it', async () => {
    const { lock } = setup();
    expect(await lock.acquire(thread, 'run_a')).toBe(true);
    expect(await lock.acquire(thread, 'run_b')).toBe(false);
    expect(await lock.holder(thread)).toBe('run_a');
    expect(await lock.acquire(slackChannel('C1', '2.2'), 'run_b')).toBe(true);
  });

  it('lets only the holder release, then the next run may take it', async () => {
    const { lock } = setup();
    await lock.acquire(thread, 'run_a');
    expect(await lock.release(thread, 'run_b')).toBe(false);
    expect(await lock.release(thread, 'run_a')).toBe(true);
    expect(await lock.holder(thread)).toBeUndefined();
    expect(await lock.acquire(thread, 'run_b')).toBe(true);
  });

  it('lets the holder refresh its lease, and frees the thread when the lease lapses', async () => {
    const { lock, clock } = setup();
    await lock.acquire(thread, 'run_a');
    clock.advance(50_000);
    expect(await lock.acquire(thread, 'run_a')).toBe(true);
    clock.advance(50_000);
    expect(await lock.holder(thread)).toBe('run_a');
    clock.advance(10_000);
    expect(await lock.acquire(thread, 'run_b')).toBe(true);
  });

  it('grants exactly one of many concurrent runs', async () => {
    const { lock } = setup();
    const results = await Promise.all(['a', 'b', 'c', 'd'].map((id) => lock.acquire(thread, `run_${id}`)));
    expect(results.filter(Boolean)).toHaveLength(1);
  });
});
