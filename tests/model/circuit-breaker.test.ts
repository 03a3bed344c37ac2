// The circuit breaker's states, backoff and persistence, driven by a manual clock.
import { describe, expect, it } from 'vitest';
import {
  BreakerRegistry,
  CircuitBreaker,
  CircuitBreakerSnapshotSchema,
} from '../../agent/circuit-breaker.js';
import { ManualClock } from '../../agent/clock.js';
import { CallerError } from '../../agent/errors.js';

const options = { failureThreshold: 3, openMs: 30_000, maxOpenMs: 100_000 };

function failTimes(breaker: CircuitBreaker, times: number) {
  for (let index = 0; index < times; index++) breaker.recordFailure();
}

describe('CircuitBreaker', () => {
  it('stays closed below the threshold and opens at it', () => {
    const clock = new ManualClock();
    const breaker = new CircuitBreaker(options, clock);
    failTimes(breaker, 2);
    expect(breaker.state()).toBe('closed');
    expect(breaker.canPass()).toBe(true);
    breaker.recordFailure();
    expect(breaker.state()).toBe('open');
    expect(breaker.canPass()).toBe(false);
    expect(breaker.reopensAt()).toBe(clock.now() + 30_000);
  });

  it('uses the documented defaults', () => {
    const breaker = new CircuitBreaker(undefined, new ManualClock());
    expect(breaker.options).toEqual({ failureThreshold: 3, openMs: 30_000, maxOpenMs: 600_000 });
  });

  it('counts only consecutive failures', () => {
    const breaker = new CircuitBreaker(options, new ManualClock());
    failTimes(breaker, 2);
    breaker.recordSuccess();
    failTimes(breaker, 2);
    expect(breaker.state()).toBe('closed');
  });

  it('lets exactly one trial through when half-open, and a success closes it', () => {
    const clock = new ManualClock();
    const breaker = new CircuitBreaker(options, clock);
    failTimes(breaker, 3);
    clock.advance(29_999);
    expect(breaker.canPass()).toBe(false);
    clock.advance(1);
    expect(breaker.state()).toBe('half_open');
    expect(breaker.reopensAt()).toBeUndefined();
    expect(breaker.canPass()).toBe(true);
    expect(breaker.canPass()).toBe(false);
    breaker.recordSuccess();
    expect(breaker.state()).toBe('closed');
    expect(breaker.canPass()).toBe(true);
    expect(breaker.consecutiveFailures()).toBe(0);
  });

  it('doubles the open time on each failed trial, up to the maximum', () => {
    const clock = new ManualClock();
    const breaker = new CircuitBreaker(options, clock);
    failTimes(breaker, 3);
    const waits: number[] = [];
    for (let round = 0; round < 4; round++) {
      const wait = breaker.reopensAt()! - clock.now();
      waits.push(wait);
      clock.advance(wait);
      expect(breaker.canPass()).toBe(true);
      breaker.recordFailure();
      expect(breaker.state()).toBe('open');
    }
    expect(waits).toEqual([30_000, 60_000, 100_000, 100_000]);
  });

  it('resets the backoff after a success', () => {
    const clock = new ManualClock();
    const breaker = new CircuitBreaker(options, clock);
    failTimes(breaker, 3);
    clock.advance(30_000);
    breaker.canPass();
    breaker.recordFailure();
    clock.advance(60_000);
    breaker.canPass();
    breaker.recordSuccess();
    failTimes(breaker, 3);
    expect(breaker.reopensAt()! - clock.now()).toBe(30_000);
  });

  it('does not extend the wait for late failures while open', () => {
    const clock = new ManualClock();
    const breaker = new CircuitBreaker(options, clock);
    failTimes(breaker, 3);
    const reopensAt = breaker.reopensAt();
    clock.advance(10_000);
    breaker.recordFailure();
    expect(breaker.reopensAt()).toBe(reopensAt);
  });

  it('frees the trial slot when the trial is cancelled or never reports back', () => {
    const clock = new ManualClock();
    const breaker = new CircuitBreaker(options, clock);
    failTimes(breaker, 3);
    clock.advance(30_000);
    expect(breaker.canPass()).toBe(true);
    breaker.recordCancelled();
    expect(breaker.canPass()).toBe(true);
    expect(breaker.canPass()).toBe(false);
    clock.advance(30_000);
    expect(breaker.canPass()).toBe(true);
  });

  it('round-trips its state through a JSON snapshot', () => {
    const clock = new ManualClock();
    const breaker = new CircuitBreaker(options, clock);
    failTimes(breaker, 3);
    clock.advance(30_000);
    breaker.canPass();
    breaker.recordFailure();
    const stored = JSON.parse(JSON.stringify(breaker.snapshot()));
    expect(CircuitBreakerSnapshotSchema.parse(stored)).toEqual({
      version: 1,
      consecutiveFailures: 4,
      reopensAt: clock.now() + 60_000,
      openMs: 60_000,
    });

    const restored = new CircuitBreaker(options, clock);
    restored.restore(stored);
    expect(restored.state()).toBe('open');
    expect(restored.reopensAt()).toBe(clock.now() + 60_000);
    clock.advance(60_000);
    expect(restored.canPass()).toBe(true);
    restored.recordFailure();
    expect(restored.reopensAt()! - clock.now()).toBe(100_000);
  });

  it('refuses a snapshot that is not one', () => {
    const breaker = new CircuitBreaker(options, new ManualClock());
    expect(() => breaker.restore({ version: 2 } as never)).toThrow();
  });

  it('rejects bad options with a message naming the field', () => {
    expect(() => new CircuitBreaker({ failureThreshold: 0 })).toThrow(CallerError);
    expect(() => new CircuitBreaker({ openMs: 60_000, maxOpenMs: 1_000 })).toThrow(/maxOpenMs/);
  });
});

describe('BreakerRegistry', () => {
  it('keeps one breaker per name with shared options, and persists only the ones with history', () => {
    const clock = new ManualClock();
    const registry = new BreakerRegistry({ failureThreshold: 1, openMs: 1_000 }, clock);
    expect(registry.get('restart_service')).toBe(registry.get('restart_service'));
    registry.get('restart_service').recordFailure();
    registry.get('read_logs').recordSuccess();
    expect(registry.get('restart_service').state()).toBe('open');
    expect(registry.get('read_logs').state()).toBe('closed');

    const snapshot = registry.snapshot();
    expect(Object.keys(snapshot)).toEqual(['restart_service']);
    const restored = new BreakerRegistry({ failureThreshold: 1, openMs: 1_000 }, clock);
    restored.restore(snapshot);
    expect(restored.get('restart_service').state()).toBe('open');
    expect(restored.names()).toEqual(['restart_service']);
  });
});
