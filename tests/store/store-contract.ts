// The one Store contract suite: every backend (memory, SQLite, Redis) runs it, so they cannot drift apart.
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ManualClock } from '../../agent/clock.js';
import type { Store } from '../../agent/store/store.js';

export interface StoreFixture {
  store: Store;
  /** Opens another instance over the same data (same file, same Redis and prefix); absent when nothing is shared. */
  reopen?: () => Promise<Store>;
  /** The clock the backend reads, when it takes one; Redis keeps its own time, so it has none. */
  clock?: ManualClock;
  /** Closes what the fixture opened and deletes what the test wrote. */
  cleanup: () => Promise<void>;
}

// Backends without an injected clock get a real TTL this short, so lapsing it stays within a ~50 ms wait.
const realTtlMs = 40;
// Everything that must not lapse during a test, however slow the machine.
const longTtlMs = 60_000;

export function runStoreContract(name: string, makeStore: () => Promise<StoreFixture>): void {
  describe(`Store contract: ${name}`, () => {
    let fixture: StoreFixture;
    let store: Store;
    const extraInstances: Store[] = [];

    beforeEach(async () => {
      fixture = await makeStore();
      store = fixture.store;
    });

    afterEach(async () => {
      await Promise.all(extraInstances.splice(0).map((instance) => instance.close()));
      await fixture.cleanup();
    });

    async function another(): Promise<Store> {
      if (!fixture.reopen) throw new Error('fixture cannot reopen');
      const instance = await fixture.reopen();
      extraInstances.push(instance);
      return instance;
    }

    const shortTtl = () => (fixture.clock ? 60_000 : realTtlMs);
    async function lapse(ms: number): Promise<void> {
      if (fixture.clock) fixture.clock.advance(ms);
      else await sleep(ms);
    }

    it('describes itself', () => {
      expect(store.description).toMatch(/\S/);
    });

    it('round-trips JSON values through get, set and delete', async () => {
      const value = {
        text: 'héllo',
        count: 3,
        nested: { list: [1, null, true] },
        colon: ':starts-with-colon',
      };
      expect(await store.get('missing')).toBeUndefined();
      await store.set('value', value);
      expect(await store.get('value')).toEqual(value);
      await store.set('value', 'replaced');
      expect(await store.get('value')).toBe('replaced');
      await store.set('null', null);
      expect(await store.get('null')).toBeNull();
      expect(await store.delete('value')).toBe(true);
      expect(await store.delete('value')).toBe(false);
      expect(await store.get('value')).toBeUndefined();
    });

    it('keeps a value with a TTL until the TTL lapses', async () => {
      await store.set('short', 'soon gone', shortTtl());
      await store.set('forever', 'stays');
      // A real 40 ms TTL may lapse before a slow machine reads it back; the Redis suite checks PTTL instead.
      if (fixture.clock) expect(await store.get('short')).toBe('soon gone');
      await lapse(shortTtl() + 10);
      expect(await store.get('short')).toBeUndefined();
      expect(await store.get('forever')).toBe('stays');
    });

    it('reads a value until the very end of its TTL', async (context) => {
      if (!fixture.clock)
        context.skip('needs an injected clock to stand at the boundary (Redis keeps its own time)');
      await store.set('edge', 'here', 1000);
      await lapse(999);
      expect(await store.get('edge')).toBe('here');
      await lapse(1);
      expect(await store.get('edge')).toBeUndefined();
    });

    it('treats a TTL of zero as already expired (keyv alone would keep it forever)', async () => {
      await store.set('zero', 'x', 0);
      expect(await store.get('zero')).toBeUndefined();
    });

    it('gives a claim to the first owner and refuses a second', async () => {
      expect(await store.claim('lock', 'alice', longTtlMs)).toBe(true);
      expect(await store.claim('lock', 'bob', longTtlMs)).toBe(false);
      expect(await store.holder('lock')).toBe('alice');
      expect(await store.holder('unclaimed')).toBeUndefined();
    });

    it('lets the same owner refresh its claim', async () => {
      expect(await store.claim('lock', 'alice', longTtlMs)).toBe(true);
      expect(await store.claim('lock', 'alice', longTtlMs)).toBe(true);
      expect(await store.holder('lock')).toBe('alice');
    });

    it('extends a refreshed claim from the moment of the refresh', async (context) => {
      if (!fixture.clock) context.skip('needs an injected clock; the Redis suite checks PTTL instead');
      await store.claim('lock', 'alice', 1000);
      await lapse(600);
      expect(await store.claim('lock', 'alice', 1000)).toBe(true);
      await lapse(600);
      expect(await store.holder('lock')).toBe('alice');
      expect(await store.claim('lock', 'bob', 1000)).toBe(false);
    });

    it('lets another owner take a claim that has lapsed', async () => {
      expect(await store.claim('lock', 'alice', shortTtl())).toBe(true);
      await lapse(shortTtl() + 10);
      expect(await store.holder('lock')).toBeUndefined();
      expect(await store.claim('lock', 'bob', longTtlMs)).toBe(true);
      expect(await store.holder('lock')).toBe('bob');
      expect(await store.release('lock', 'alice')).toBe(false);
      expect(await store.holder('lock')).toBe('bob');
    });

    it('releases a claim only for its owner', async () => {
      await store.claim('lock', 'alice', longTtlMs);
      expect(await store.release('lock', 'bob')).toBe(false);
      expect(await store.holder('lock')).toBe('alice');
      expect(await store.release('lock', 'alice')).toBe(true);
      expect(await store.holder('lock')).toBeUndefined();
      expect(await store.release('lock', 'alice')).toBe(false);
      expect(await store.claim('lock', 'bob', longTtlMs)).toBe(true);
    });

    it('keeps claims apart from values of the same key', async () => {
      await store.set('shared-name', 'a value');
      expect(await store.claim('shared-name', 'alice', longTtlMs)).toBe(true);
      expect(await store.get('shared-name')).toBe('a value');
    });

    it('reads logs in the order written, from an index and up to a limit', async () => {
      for (let index = 0; index < 5; index += 1) await store.append('events', { index });
      await store.append('other', { index: 'elsewhere' });
      const indexes = (records: Array<{ index: number }>) => records.map((record) => record.index);
      expect(indexes(await store.readLog('events'))).toEqual([0, 1, 2, 3, 4]);
      expect(indexes(await store.readLog('events', { fromIndex: 2 }))).toEqual([2, 3, 4]);
      expect(indexes(await store.readLog('events', { fromIndex: 1, limit: 2 }))).toEqual([1, 2]);
      expect(indexes(await store.readLog('events', { limit: 3 }))).toEqual([0, 1, 2]);
      expect(await store.readLog('events', { limit: 0 })).toEqual([]);
      expect(await store.readLog('events', { fromIndex: 9 })).toEqual([]);
      expect(await store.readLog('never-written')).toEqual([]);
    });

    it('deletes a whole log in a batch, and leaves the others and a value of the same name', async () => {
      for (let index = 0; index < 3; index += 1) await store.append('trace:gone', { index });
      await store.append('trace:kept', { index: 0 });
      await store.set('trace:gone', 'a value');
      await store.writeAll([{ kind: 'deleteLog', log: 'trace:gone' }]);
      expect(await store.readLog('trace:gone')).toEqual([]);
      expect(await store.readLog('trace:kept')).toEqual([{ index: 0 }]);
      expect(await store.get('trace:gone')).toBe('a value');
      // Appending after the delete starts the log again.
      await store.append('trace:gone', { index: 9 });
      expect(await store.readLog('trace:gone')).toEqual([{ index: 9 }]);
    });

    it('keeps set members once each, and removes them', async () => {
      await store.addToSet('waiting', 'run-2');
      await store.addToSet('waiting', 'run-1');
      await store.addToSet('waiting', 'run-2');
      await store.addToSet('elsewhere', 'run-9');
      expect((await store.members('waiting')).sort()).toEqual(['run-1', 'run-2']);
      await store.removeFromSet('waiting', 'run-2');
      await store.removeFromSet('waiting', 'not-a-member');
      expect(await store.members('waiting')).toEqual(['run-1']);
      expect(await store.members('empty')).toEqual([]);
    });

    it('keeps a time index earliest first, moves a member added again, and reads what is due up to a limit', async () => {
      await store.addToIndex('expiry', 'run-late', 5000);
      await store.addToIndex('expiry', 'run-b', 1000);
      await store.addToIndex('expiry', 'run-a', 1000);
      await store.addToIndex('expiry', 'run-moved', 100);
      await store.addToIndex('elsewhere', 'run-9', 0);
      await store.addToIndex('expiry', 'run-moved', 3000);
      expect(await store.due('expiry', 2999, 10)).toEqual([
        { member: 'run-a', at: 1000 },
        { member: 'run-b', at: 1000 },
      ]);
      expect(await store.due('expiry', 3000, 10)).toEqual([
        { member: 'run-a', at: 1000 },
        { member: 'run-b', at: 1000 },
        { member: 'run-moved', at: 3000 },
      ]);
      expect(await store.due('expiry', Number.POSITIVE_INFINITY, 1)).toEqual([{ member: 'run-a', at: 1000 }]);
      expect(await store.due('expiry', Number.POSITIVE_INFINITY, 0)).toEqual([]);
      expect(await store.due('expiry', 999, 10)).toEqual([]);
      await store.removeFromIndex('expiry', 'run-a');
      await store.removeFromIndex('expiry', 'not-a-member');
      expect((await store.due('expiry', Number.POSITIVE_INFINITY, 10)).map((entry) => entry.member)).toEqual([
        'run-b',
        'run-moved',
        'run-late',
      ]);
      expect(await store.due('never-written', Number.POSITIVE_INFINITY, 10)).toEqual([]);
      // Epoch milliseconds come back exact.
      await store.addToIndex('epoch', 'run-1', Date.UTC(2026, 10, 30, 17, 52, 42, 123));
      expect(await store.due('epoch', Date.UTC(2027, 0, 1), 1)).toEqual([
        { member: 'run-1', at: Date.UTC(2026, 10, 30, 17, 52, 42, 123) },
      ]);
    });

    it('makes a batch of writes in order, readable by the single methods', async () => {
      await store.set('stale', 'old');
      await store.addToSet('runs:waiting', 'run-1');
      await store.claim('thread-lock:1', 'run-1', longTtlMs);
      await store.claim('thread-lock:2', 'run-2', longTtlMs);
      await store.writeAll([
        { kind: 'append', log: 'thread:1', record: 'run-1' },
        { kind: 'set', key: 'run:1', value: { status: 'queued', nested: [1, null, 'é'] } },
        { kind: 'set', key: 'run:1', value: { status: 'running' } },
        { kind: 'set', key: 'gone-at-once', value: 'x', ttlMs: 0 },
        { kind: 'set', key: 'short', value: 'soon gone', ttlMs: shortTtl() },
        { kind: 'delete', key: 'stale' },
        { kind: 'addToSet', set: 'runs:active', member: 'run-1' },
        { kind: 'removeFromSet', set: 'runs:waiting', member: 'run-1' },
        { kind: 'append', log: 'thread:1', record: { run: 2 } },
        { kind: 'release', key: 'thread-lock:1', owner: 'run-2' },
        { kind: 'release', key: 'thread-lock:2', owner: 'run-2' },
        { kind: 'addToIndex', index: 'runs:expiry', member: 'run-1', at: 2000 },
        { kind: 'addToIndex', index: 'runs:expiry', member: 'run-2', at: 1000 },
        { kind: 'addToIndex', index: 'runs:expiry', member: 'run-1', at: 500 },
        { kind: 'removeFromIndex', index: 'runs:expiry', member: 'run-2' },
      ]);
      await store.writeAll([]);
      expect(await store.get('run:1')).toEqual({ status: 'running' });
      expect(await store.get('gone-at-once')).toBeUndefined();
      expect(await store.get('stale')).toBeUndefined();
      expect(await store.readLog('thread:1')).toEqual(['run-1', { run: 2 }]);
      expect(await store.members('runs:active')).toEqual(['run-1']);
      expect(await store.members('runs:waiting')).toEqual([]);
      // A release frees a claim only for its owner, as release does.
      expect(await store.holder('thread-lock:1')).toBe('run-1');
      expect(await store.holder('thread-lock:2')).toBeUndefined();
      expect(await store.due('runs:expiry', 10_000, 10)).toEqual([{ member: 'run-1', at: 500 }]);
      await lapse(shortTtl() + 10);
      expect(await store.get('short')).toBeUndefined();
      expect(await store.get('run:1')).toEqual({ status: 'running' });
    });

    it('answers a ping and closes more than once without error', async () => {
      await expect(store.ping()).resolves.toBeUndefined();
      await store.close();
      await store.close();
    });

    it('keeps everything when opened again', async (context) => {
      if (!fixture.reopen) context.skip('this backend keeps nothing outside its own instance');
      await store.set('run:1', { status: 'running' });
      await store.claim('approval:1', 'alice', longTtlMs);
      await store.append('run:1:events', 'started');
      await store.addToSet('runs:waiting', 'run:1');
      await store.addToIndex('runs:expiry', 'run:1', 1234);
      await store.close();

      const reopened = await another();
      expect(await reopened.get('run:1')).toEqual({ status: 'running' });
      expect(await reopened.holder('approval:1')).toBe('alice');
      expect(await reopened.claim('approval:1', 'bob', longTtlMs)).toBe(false);
      expect(await reopened.readLog('run:1:events')).toEqual(['started']);
      expect(await reopened.members('runs:waiting')).toEqual(['run:1']);
      expect(await reopened.due('runs:expiry', 1234, 10)).toEqual([{ member: 'run:1', at: 1234 }]);
    });

    it('gives exactly one of 50 concurrent claims from two instances', async () => {
      // Memory has no second instance over the same data, so there both halves of the race share one.
      const contenders = fixture.reopen ? [store, await another()] : [store, store];
      const attempts = Array.from({ length: 50 }, (_, index) =>
        contenders[index % 2]!.claim('patrol:leader', `replica-${index}`, longTtlMs),
      );
      const results = await Promise.all(attempts);
      expect(results.filter(Boolean)).toHaveLength(1);
      const winner = `replica-${results.indexOf(true)}`;
      expect(await store.holder('patrol:leader')).toBe(winner);
      if (fixture.reopen) expect(await contenders[1]!.holder('patrol:leader')).toBe(winner);
    });
  });
}
