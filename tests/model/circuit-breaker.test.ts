// The circuit breaker's states and backoff, driven by a manual clock, and what it asks of its Store: nothing on a
// call while nothing changes. Keeping it across a restart and between processes: tests/store/breaker-contract.ts.
import { describe, expect, it } from 'vitest';
import { BreakerRegistry, CircuitBreaker } from '../../agent/circuit-breaker.js';
import { type Clock, ManualClock } from '../../agent/clock.js';
import { CallerError, ErrorCode, SystemError } from '../../agent/errors.js';
import type { Logger } from '../../agent/logger.js';
import { silentLogger } from '../../agent/logger.js';
import { MemoryStore } from '../../agent/store/memory-store.js';
import type { Store } from '../../agent/store/store.js';
import { countingStore, type StoreCall } from '../store/counting-store.js';

const options = { failureThreshold: 3, openMs: 30_000, maxOpenMs: 100_000 };

function breakerOn(clock: Clock, store?: Store, logger?: Logger) {
  return new CircuitBreaker({
    name: 'tool:flaky',
    options,
    clock,
    ...(store ? { store } : {}),
    ...(logger ? { logger } : {}),
  });
}

async function failTimes(breaker: CircuitBreaker, times: number) {
  for (let index = 0; index < times; index++) await await breaker.recordFailure();
}

describe('CircuitBreaker', () => {
  it('stays closed below the threshold and opens at it', async () => {
    const clock = new ManualClock();
    const breaker = breakerOn(clock);
    await failTimes(breaker, 2);
    expect(breaker.state()).toBe('closed');
    expect(await breaker.canPass()).toBe(true);
    await breaker.recordFailure();
    expect(breaker.state()).toBe('open');
    expect(await breaker.canPass()).toBe(false);
    expect(breaker.reopensAt()).toBe(clock.now() + 30_000);
  });

  it('uses the documented defaults', async () => {
    const breaker = new CircuitBreaker({ name: 'model', clock: new ManualClock() });
    expect(breaker.options).toEqual({ failureThreshold: 3, openMs: 30_000, maxOpenMs: 600_000 });
  });

  it('counts only consecutive failures', async () => {
    const breaker = breakerOn(new ManualClock());
    await failTimes(breaker, 2);
    await breaker.recordSuccess();
    await failTimes(breaker, 2);
    expect(breaker.state()).toBe('closed');
  });

  it('lets exactly one trial through when half-open, and a success closes it', async () => {
    const clock = new ManualClock();
    const breaker = breakerOn(clock);
    await failTimes(breaker, 3);
    clock.advance(29_999);
    expect(await breaker.canPass()).toBe(false);
    clock.advance(1);
    expect(breaker.state()).toBe('half_open');
    expect(breaker.reopensAt()).toBeUndefined();
    expect(await breaker.canPass()).toBe(true);
    expect(await breaker.canPass()).toBe(false);
    await breaker.recordSuccess();
    expect(breaker.state()).toBe('closed');
    expect(await breaker.canPass()).toBe(true);
    expect(breaker.consecutiveFailures()).toBe(0);
  });

  it('doubles the open time on each failed trial, up to the maximum', async () => {
    const clock = new ManualClock();
    const breaker = breakerOn(clock);
    await failTimes(breaker, 3);
    const waits: number[] = [];
    for (let round = 0; round < 4; round++) {
      const wait = breaker.reopensAt()! - clock.now();
      waits.push(wait);
      clock.advance(wait);
      expect(await breaker.canPass()).toBe(true);
      await breaker.recordFailure();
      expect(breaker.state()).toBe('open');
    }
    expect(waits).toEqual([30_000, 60_000, 100_000, 100_000]);
  });

  it('resets the backoff after a success', async () => {
    const clock = new ManualClock();
    const breaker = breakerOn(clock);
    await failTimes(breaker, 3);
    clock.advance(30_000);
    await breaker.canPass();
    await breaker.recordFailure();
    clock.advance(60_000);
    await breaker.canPass();
    await breaker.recordSuccess();
    await failTimes(breaker, 3);
    expect(breaker.reopensAt()! - clock.now()).toBe(30_000);
  });

  it('does not extend the wait for late failures while open', async () => {
    const clock = new ManualClock();
    const breaker = breakerOn(clock);
    await failTimes(breaker, 3);
    const reopensAt = breaker.reopensAt();
    clock.advance(10_000);
    await breaker.recordFailure();
    expect(breaker.reopensAt()).toBe(reopensAt);
  });

  it('frees the trial slot when the trial is cancelled or never reports back', async () => {
    const clock = new ManualClock();
    const breaker = breakerOn(clock);
    await failTimes(breaker, 3);
    clock.advance(30_000);
    expect(await breaker.canPass()).toBe(true);
    await breaker.recordCancelled();
    expect(await breaker.canPass()).toBe(true);
    expect(await breaker.canPass()).toBe(false);
    clock.advance(30_000);
    expect(await breaker.canPass()).toBe(true);
  });

  it('keeps its state in the store while it remembers failures, and no record once closed', async () => {
    const clock = new ManualClock();
    const store = new MemoryStore(clock);
    const breaker = breakerOn(clock, store);
    const firstFailure = clock.now();
    await failTimes(breaker, 3);
    clock.advance(30_000);
    await breaker.canPass();
    await breaker.recordFailure();
    expect(await store.get('breaker:tool:flaky')).toEqual({
      version: 1,
      consecutiveFailures: 4,
      reopensAt: clock.now() + 60_000,
      openMs: 60_000,
      failingSince: firstFailure,
    });
    // Another process reading the record knows since when the failures run.
    expect(breakerOn(clock, store).failingSince()).toBeUndefined();
    const reader = breakerOn(clock, store);
    await reader.canPass();
    expect(reader.failingSince()).toBe(firstFailure);
    clock.advance(60_000);
    expect(await breaker.canPass()).toBe(true);
    await breaker.recordSuccess();
    expect(await store.get('breaker:tool:flaky')).toBeUndefined();
  });

  it('asks the store nothing on a call while nothing changes, and reads it when an opening runs out', async () => {
    const clock = new ManualClock();
    const calls: StoreCall[] = [];
    const breaker = breakerOn(clock, countingStore(new MemoryStore(clock), calls));
    expect(await breaker.canPass()).toBe(true);
    expect(calls.map((call) => call.method)).toEqual(['get']);
    for (let call = 0; call < 50; call++) {
      expect(await breaker.canPass()).toBe(true);
      await breaker.recordSuccess();
    }
    expect(calls).toHaveLength(1);

    await failTimes(breaker, 3);
    calls.length = 0;
    for (let call = 0; call < 50; call++) expect(await breaker.canPass()).toBe(false);
    expect(calls).toHaveLength(0);
    clock.advance(30_000);
    expect(await breaker.canPass()).toBe(true);
    expect(calls.map((call) => call.method)).toEqual(['get', 'claim']);
  });

  it('starts closed from a stored state it cannot read, and says so', async () => {
    const clock = new ManualClock();
    const store = new MemoryStore(clock);
    await store.set('breaker:tool:flaky', { version: 2, open: true });
    const warnings: string[] = [];
    const breaker = breakerOn(clock, store, {
      ...silentLogger,
      warn: (_fields, message) => void warnings.push(message ?? ''),
    });
    expect(await breaker.canPass()).toBe(true);
    expect(warnings).toEqual([
      'circuit breaker tool:flaky: its stored state is not one this version reads; it starts closed',
    ]);
  });

  it('goes on with its own copy while the store is down, says so once, and reads the store again after', async () => {
    const clock = new ManualClock();
    const memory = new MemoryStore(clock);
    let down = true;
    const flaky = new Proxy(memory, {
      get(target, property, receiver) {
        const value = Reflect.get(target, property, receiver);
        if (typeof value !== 'function') return value;
        return (...args: unknown[]) =>
          down
            ? Promise.reject(new SystemError(ErrorCode.StoreUnavailable, 'the store is down'))
            : value.apply(target, args);
      },
    });
    const warnings: string[] = [];
    const breaker = breakerOn(clock, flaky, {
      ...silentLogger,
      warn: (_fields, message) => void warnings.push(message ?? ''),
    });
    expect(await breaker.canPass()).toBe(true);
    await failTimes(breaker, 3);
    expect(await breaker.canPass()).toBe(false);
    expect(warnings).toEqual([
      'circuit breaker tool:flaky: could not read its state in the store; this process goes on with its own copy until the store answers',
    ]);

    down = false;
    await breaker.recordFailure();
    expect(await memory.get('breaker:tool:flaky')).toMatchObject({ consecutiveFailures: 4 });
  });

  it('rejects bad options with a message naming the field', async () => {
    expect(() => new CircuitBreaker({ name: 'model', options: { failureThreshold: 0 } })).toThrow(
      CallerError,
    );
    expect(
      () => new CircuitBreaker({ name: 'model', options: { openMs: 60_000, maxOpenMs: 1_000 } }),
    ).toThrow(/maxOpenMs/);
  });
});

describe('BreakerRegistry', () => {
  it('keeps one breaker per name with shared options, each under its own key in the store', async () => {
    const clock = new ManualClock();
    const store = new MemoryStore(clock);
    const setup = { prefix: 'tool', options: { failureThreshold: 1, openMs: 1_000 }, store, clock };
    const registry = new BreakerRegistry(setup);
    expect(registry.get('restart_service')).toBe(registry.get('restart_service'));
    await registry.get('restart_service').recordFailure();
    await registry.get('read_logs').recordSuccess();
    expect(registry.get('restart_service').state()).toBe('open');
    expect(registry.get('read_logs').state()).toBe('closed');
    expect(registry.names()).toEqual(['restart_service', 'read_logs']);
    expect(await store.get('breaker:tool:restart_service')).toMatchObject({ consecutiveFailures: 1 });
    expect(await store.get('breaker:tool:read_logs')).toBeUndefined();

    const restarted = new BreakerRegistry(setup);
    expect(await restarted.get('restart_service').canPass()).toBe(false);
    expect(await restarted.get('read_logs').canPass()).toBe(true);
  });
});
