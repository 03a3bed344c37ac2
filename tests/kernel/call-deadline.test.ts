// A tool call's deadline: a timer the call owns, which aborts the call with a timeout at the deadline, lets a
// tool that heeds it report in its own words, and is gone (timer and cancel listener) once the call settles.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { settleWithinDeadline } from '../../agent/call-deadline.js';
import { isToolTimeout, ToolTimeoutError } from '../../agent/tool-timeout.js';

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

/** A promise the test settles, and the abort reasons the call received. */
function call<T>() {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const work = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  const aborts: unknown[] = [];
  return { work, resolve, reject, aborts, abort: (reason: unknown) => void aborts.push(reason) };
}

describe('settleWithinDeadline', () => {
  it('leaves no timer and no cancel listener once the call returns', async () => {
    const cancel = new AbortController();
    const listeners = vi.spyOn(cancel.signal, 'removeEventListener');
    const pending = call<string>();
    const settled = settleWithinDeadline(pending.work, {
      timeoutMs: 10_000,
      cancel: cancel.signal,
      abort: pending.abort,
    });
    expect(vi.getTimerCount()).toBe(1);
    pending.resolve('done');
    expect(await settled).toEqual({ kind: 'returned', value: 'done' });
    expect(vi.getTimerCount()).toBe(0);
    expect(listeners).toHaveBeenCalledWith('abort', expect.any(Function));
    // Nothing is left to fire: neither time nor a late cancel reaches the finished call.
    await vi.advanceTimersByTimeAsync(60_000);
    cancel.abort(new Error('too late'));
    expect(pending.aborts).toEqual([]);
  });

  it('leaves nothing pending when the call throws before its deadline', async () => {
    const pending = call<string>();
    const settled = settleWithinDeadline(pending.work, { timeoutMs: 10_000, abort: pending.abort });
    pending.reject(new Error('ECONNREFUSED'));
    expect(await settled).toMatchObject({ kind: 'threw', error: new Error('ECONNREFUSED') });
    expect(vi.getTimerCount()).toBe(0);
  });

  it('aborts the call with a ToolTimeoutError at the deadline, and takes the result the tool then returns', async () => {
    const pending = call<string>();
    const settled = settleWithinDeadline(pending.work, { timeoutMs: 1_500, abort: pending.abort });
    await vi.advanceTimersByTimeAsync(1_499);
    expect(pending.aborts).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(pending.aborts).toHaveLength(1);
    const reason = pending.aborts[0];
    expect(isToolTimeout(reason)).toBe(true);
    expect((reason as ToolTimeoutError).timeoutMs).toBe(1_500);
    expect((reason as Error).message).toBe('timed out after 1.5 s');
    pending.resolve('GET / failed: it timed out after 1.5 s.');
    expect(await settled).toEqual({ kind: 'returned', value: 'GET / failed: it timed out after 1.5 s.' });
    expect(vi.getTimerCount()).toBe(0);
  });

  it('gives up on a tool that ignores its abort once the grace has passed, and one that throws it times out', async () => {
    const ignoring = call<string>();
    const gaveUp = settleWithinDeadline(ignoring.work, {
      timeoutMs: 1_000,
      graceMs: 500,
      abort: ignoring.abort,
    });
    await vi.advanceTimersByTimeAsync(1_499);
    expect(vi.getTimerCount()).toBe(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(await gaveUp).toEqual({ kind: 'timed_out', timeoutMs: 1_000 });
    expect(vi.getTimerCount()).toBe(0);

    const throwing = call<string>();
    const threw = settleWithinDeadline(throwing.work, { timeoutMs: 1_000, abort: throwing.abort });
    await vi.advanceTimersByTimeAsync(1_000);
    throwing.reject(throwing.aborts[0]);
    expect(await threw).toEqual({ kind: 'timed_out', timeoutMs: 1_000 });
    expect(vi.getTimerCount()).toBe(0);
  });

  it("counts a tool's own ToolTimeoutError (a shorter timeout_ms) as a timeout of that length, not a throw", async () => {
    const pending = call<string>();
    const settled = settleWithinDeadline(pending.work, { timeoutMs: 30_000, abort: pending.abort });
    pending.reject(new ToolTimeoutError(1_500));
    expect(await settled).toEqual({ kind: 'timed_out', timeoutMs: 1_500 });
    expect(pending.aborts).toEqual([]);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('settles a cancelled call at once, with the cancel as its reason, not a timeout', async () => {
    const cancel = new AbortController();
    const pending = call<string>();
    const settled = settleWithinDeadline(pending.work, {
      timeoutMs: 10_000,
      cancel: cancel.signal,
      abort: pending.abort,
    });
    const why = new Error('cancelled by Alice');
    cancel.abort(why);
    expect(await settled).toEqual({ kind: 'cancelled' });
    expect(pending.aborts).toEqual([why]);
    expect(vi.getTimerCount()).toBe(0);
  });
});
