// The leader claim on the memory and SQLite stores with fake timers: one leader at a time, a standby takes over
// once a killed leader's claim lapses or at once when it releases, and a leader that loses the claim is told.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { systemClock } from '../../agent/clock.js';
import { silentLogger } from '../../agent/logger.js';
import { MemoryStore } from '../../agent/store/memory-store.js';
import { SqliteStore } from '../../agent/store/sqlite-store.js';
import type { Store } from '../../agent/store/store.js';
import { LeaderClaim } from '../../bot/cluster/leader-claim.js';

const KEY = 'discord:session';
const TTL = 20_000;

interface Contender {
  claim: LeaderClaim;
  events: string[];
}

function contender(store: Pick<Store, 'claim' | 'release' | 'holder'>, owner: string): Contender {
  const events: string[] = [];
  const claim = new LeaderClaim({
    store,
    key: KEY,
    owner,
    ttlMs: TTL,
    clock: systemClock,
    logger: silentLogger,
    onWon: () => events.push('won'),
    onLost: (reason) => events.push(`lost: ${reason}`),
  });
  return { claim, events };
}

const dirs: string[] = [];
const stores: Store[] = [];
beforeEach(() => {
  vi.useFakeTimers({ now: Date.UTC(2026, 0, 1) });
});
afterEach(async () => {
  vi.useRealTimers();
  for (const store of stores.splice(0)) await store.close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const backends: Array<[string, () => Store]> = [
  ['memory', () => new MemoryStore(systemClock)],
  [
    'SQLite',
    () => {
      const dir = mkdtempSync(join(tmpdir(), 'opsbot-leader-'));
      dirs.push(dir);
      return new SqliteStore(join(dir, 'opsbot.sqlite'), { clock: systemClock });
    },
  ],
];

describe.each(backends)('the leader claim on the %s store', (_name, open) => {
  function store(): Store {
    const opened = open();
    stores.push(opened);
    return opened;
  }

  it('lets one of two processes lead; the other stays standby while the leader renews', async () => {
    const shared = store();
    const a = contender(shared, 'inst_a');
    const b = contender(shared, 'inst_b');
    expect(await a.claim.start()).toBe(true);
    expect(await b.claim.start()).toBe(false);
    expect(await b.claim.state()).toEqual({ leader: false, holder: 'inst_a' });
    expect(await a.claim.state()).toEqual({ leader: true });
    // Renewed every 5 s, so it never lapses.
    await vi.advanceTimersByTimeAsync(120_000);
    expect(a.events).toEqual(['won']);
    expect(b.events).toEqual([]);
    expect(await shared.holder(KEY)).toBe('inst_a');
    await a.claim.halt();
    await b.claim.halt();
  });

  it('hands over after the ttl and one interval when the leader is killed (stops renewing, never releases)', async () => {
    const shared = store();
    const a = contender(shared, 'inst_a');
    const b = contender(shared, 'inst_b');
    await a.claim.start();
    await b.claim.start();
    await vi.advanceTimersByTimeAsync(3_000);
    await a.claim.halt(); // kill -9: no renewal, no release
    await vi.advanceTimersByTimeAsync(TTL - 5_000);
    expect(b.events).toEqual([]);
    await vi.advanceTimersByTimeAsync(10_000);
    expect(b.events).toEqual(['won']);
    expect(b.claim.isLeader).toBe(true);
    expect(await shared.holder(KEY)).toBe('inst_b');
    await b.claim.halt();
  });

  it('hands over at the next interval when the leader releases (SIGTERM)', async () => {
    const shared = store();
    const a = contender(shared, 'inst_a');
    const b = contender(shared, 'inst_b');
    await a.claim.start();
    await b.claim.start();
    await a.claim.halt();
    await a.claim.release();
    expect(await shared.holder(KEY)).toBeUndefined();
    await vi.advanceTimersByTimeAsync(b.claim.intervalMs);
    expect(b.events).toEqual(['won']);
    await b.claim.halt();
  });

  it('tells a leader that finds the claim held by another (after a long pause) that it lost', async () => {
    const shared = store();
    const a = contender(shared, 'inst_a');
    await a.claim.start();
    // The leader is frozen past its ttl (the clock moves, its timers do not run) and another process takes over.
    vi.setSystemTime(Date.now() + TTL + 1);
    expect(await shared.claim(KEY, 'inst_b', TTL)).toBe(true);
    await a.claim.tick();
    expect(a.events).toEqual(['won', 'lost: inst_b holds the claim now']);
    expect(a.claim.isLeader).toBe(false);
    expect(await a.claim.state()).toEqual({ leader: false, holder: 'inst_b' });
    await a.claim.halt();
  });

  it('gives up leading when it cannot renew for a whole ttl, and not before', async () => {
    const shared = store();
    let failing = false;
    const flaky: Pick<Store, 'claim' | 'release' | 'holder'> = {
      claim: (...args) => (failing ? Promise.reject(new Error('Redis is down')) : shared.claim(...args)),
      release: (...args) => shared.release(...args),
      holder: (key) => shared.holder(key),
    };
    const a = contender(flaky, 'inst_a');
    await a.claim.start();
    failing = true;
    await vi.advanceTimersByTimeAsync(TTL - 1_000);
    expect(a.events).toEqual(['won']);
    await vi.advanceTimersByTimeAsync(5_000);
    expect(a.events).toEqual(['won', expect.stringMatching(/^lost: could not renew the claim for 20 s/)]);
    // Once the store answers again, it takes the claim back (nobody else wanted it).
    failing = false;
    await vi.advanceTimersByTimeAsync(5_000);
    expect(a.events.at(-1)).toBe('won');
    await a.claim.halt();
  });

  it('resigns so that another may try, and tries again itself', async () => {
    const shared = store();
    const a = contender(shared, 'inst_a');
    await a.claim.start();
    await a.claim.resign();
    expect(await shared.holder(KEY)).toBeUndefined();
    expect(a.claim.isLeader).toBe(false);
    await vi.advanceTimersByTimeAsync(5_000);
    expect(a.events).toEqual(['won', 'won']);
    await a.claim.halt();
  });
});
