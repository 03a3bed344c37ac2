// A circuit breaker kept in the Store, on each backend that can be opened again over the same data (SQLite on the
// same file, Redis under the same prefix): an opening outlives the process and is shared with the others. The
// breaker's clock is the test's, so its schedule is too, whatever clock the backend keeps.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CircuitBreaker } from '../../agent/circuit-breaker.js';
import { ManualClock } from '../../agent/clock.js';
import type { Store } from '../../agent/store/store.js';
import type { StoreFixture } from './store-contract.js';

const options = { failureThreshold: 2, openMs: 30_000, maxOpenMs: 120_000 };

export function runBreakerContract(name: string, makeStore: () => Promise<StoreFixture>): void {
  describe(`circuit breaker kept in the store: ${name}`, () => {
    let fixture: StoreFixture;
    const opened: Store[] = [];
    const clock = new ManualClock();

    beforeEach(async () => {
      fixture = await makeStore();
    });
    afterEach(async () => {
      await Promise.all(opened.splice(0).map((store) => store.close()));
      await fixture.cleanup();
    });

    /** The same data, as another process (or this one after a restart) opens it. */
    async function reopened(): Promise<Store> {
      if (!fixture.reopen) throw new Error(`the ${name} fixture cannot open its data again`);
      const store = await fixture.reopen();
      opened.push(store);
      return store;
    }

    const breaker = (store: Store) => new CircuitBreaker({ name: 'tool:flaky', options, store, clock });

    it('keeps an opening across a restart, and closes again on its schedule', async () => {
      const first = breaker(fixture.store);
      await first.recordFailure();
      await first.recordFailure();
      expect(first.state()).toBe('open');
      const reopensAt = first.reopensAt();
      await fixture.store.close();

      const restarted = breaker(await reopened());
      expect(await restarted.canPass()).toBe(false);
      expect(restarted.reopensAt()).toBe(reopensAt);
      expect(restarted.consecutiveFailures()).toBe(2);

      clock.advance(30_000);
      expect(await restarted.canPass()).toBe(true);
      await restarted.recordFailure();
      expect(restarted.reopensAt()).toBe(clock.now() + 60_000);
      clock.advance(59_999);
      expect(await restarted.canPass()).toBe(false);
      clock.advance(1);
      expect(await restarted.canPass()).toBe(true);
      await restarted.recordSuccess();
      expect(restarted.state()).toBe('closed');

      const again = breaker(await reopened());
      expect(await again.canPass()).toBe(true);
      expect(again.consecutiveFailures()).toBe(0);
    });

    it('shares an opening and its one trial with another process', async () => {
      const here = breaker(fixture.store);
      const there = breaker(await reopened());
      expect(await there.canPass()).toBe(true);
      await here.recordFailure();
      await here.recordFailure();
      // The other process reads the Store at its next failure, not on every call.
      expect(there.state()).toBe('closed');
      await there.recordFailure();
      expect(there.state()).toBe('open');
      expect(there.reopensAt()).toBe(here.reopensAt());
      expect(there.consecutiveFailures()).toBe(3);

      clock.advance(30_000);
      const [herePasses, therePasses] = await Promise.all([here.canPass(), there.canPass()]);
      expect([herePasses, therePasses].filter(Boolean)).toHaveLength(1);
      const [trial, other] = herePasses ? [here, there] : [there, here];
      expect(await other.canPass()).toBe(false);
      await trial.recordSuccess();
      expect(await other.canPass()).toBe(true);
      expect(other.state()).toBe('closed');
    });
  });
}
