// A tool's time limits: timeout_ms within the kernel's deadline, a timer the call owns, a timeout told apart
// from a cancel, and nothing left pending (timer, listener, abort) once withCallLimits returns.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ToolTimeoutError } from '../../agent/tool-timeout.js';
import { abortText, type CallLimits, withCallLimits } from '../../tools/call-limits.js';
import { testContext } from './helpers/tool-context.js';

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

/** Runs withCallLimits around work that waits until the test releases it; hands back the limits it saw. */
function held(context: ReturnType<typeof testContext>, requestedMs: number | undefined, defaultMs: number) {
  let release!: () => void;
  let seen!: CallLimits;
  const done = withCallLimits(context, requestedMs, defaultMs, async (limits) => {
    seen = limits;
    await new Promise<void>((resolve) => {
      release = resolve;
    });
    return limits;
  });
  return { done, release: () => release(), limits: () => seen };
}

describe('withCallLimits', () => {
  it('aborts at timeout_ms with a timeout, worded in human units', async () => {
    const call = held(testContext(), 1_500, 10_000);
    await vi.advanceTimersByTimeAsync(1_499);
    expect(call.limits().signal.aborted).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(call.limits().signal.reason).toBeInstanceOf(ToolTimeoutError);
    expect(call.limits().cancelledByCaller()).toBe(false);
    expect(abortText(call.limits())).toBe('it timed out after 1.5 s');
    call.release();
    await call.done;
  });

  it('leaves no timer and no listener once the work returns, and its signal never aborts after', async () => {
    const caller = new AbortController();
    const removed = vi.spyOn(caller.signal, 'removeEventListener');
    const call = held(testContext({ signal: caller.signal }), undefined, 10_000);
    await vi.advanceTimersByTimeAsync(0);
    expect(vi.getTimerCount()).toBe(1);
    call.release();
    const limits = await call.done;
    expect(vi.getTimerCount()).toBe(0);
    expect(removed).toHaveBeenCalledWith('abort', expect.any(Function));
    await vi.advanceTimersByTimeAsync(60_000);
    caller.abort(new Error('cancelled by Alice'));
    expect(limits.signal.aborted).toBe(false);
  });

  it('disposes of its limits when the work throws, too', async () => {
    await expect(
      withCallLimits(testContext(), 1_000, 10_000, async () => {
        throw new Error('EHOSTUNREACH');
      }),
    ).rejects.toThrow('EHOSTUNREACH');
    expect(vi.getTimerCount()).toBe(0);
  });

  it('tells a cancel by the kernel apart from a timeout', async () => {
    const caller = new AbortController();
    const call = held(testContext({ signal: caller.signal }), 5_000, 10_000);
    await vi.advanceTimersByTimeAsync(100);
    caller.abort(new Error('cancelled by Alice'));
    expect(call.limits().signal.aborted).toBe(true);
    expect(call.limits().cancelledByCaller()).toBe(true);
    expect(abortText(call.limits())).toBe('the call was cancelled');
    call.release();
    await call.done;
  });

  it("takes the kernel's limit when it is the nearer one, and words it whole: the kernel's timeout is no cancel", async () => {
    const caller = new AbortController();
    const context = testContext({ signal: caller.signal, deadline: Date.now() + 1_000, timeoutMs: 1_000 });
    await vi.advanceTimersByTimeAsync(3);
    const call = held(context, 60_000, 10_000);
    expect(call.limits().deadline).toBe(context.deadline);
    expect(call.limits().timeoutMs).toBe(1_000);
    // The kernel's timer aborts the call's signal at the deadline with its own timeout.
    caller.abort(new ToolTimeoutError(1_000));
    expect(call.limits().cancelledByCaller()).toBe(false);
    expect(abortText(call.limits())).toBe('it timed out after 1 s');
    call.release();
    await call.done;
  });
});
