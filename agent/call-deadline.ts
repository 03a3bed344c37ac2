// A tool call's time limit as a timer the call owns, cleared the moment the call settles: no garbage collection
// can lose it (Node 20 can lose an `AbortSignal.timeout()` inside `AbortSignal.any()`), and nothing outlives it.
import { isToolTimeout, ToolTimeoutError } from './tool-timeout.js';

/**
 * Time a tool gets after its signal aborts at the deadline to stop its work and report in its own words: 1 s,
 * or the limit itself when that is shorter.
 */
export const STOP_GRACE_MS = 1_000;

export type CallSettlement<T> =
  | { kind: 'returned'; value: T }
  | { kind: 'threw'; error: unknown }
  /**
   * The deadline passed and the tool did not return within the grace, or threw what its abort gave it; or the
   * tool threw a ToolTimeoutError of its own (a shorter timeout_ms). `timeoutMs` is the limit that ran out.
   */
  | { kind: 'timed_out'; timeoutMs: number }
  | { kind: 'cancelled' };

export interface CallDeadlineOptions {
  timeoutMs: number;
  /** STOP_GRACE_MS (or the limit, when shorter) when absent. */
  graceMs?: number;
  /** The run's cancel: it aborts the call at once, with its own reason, and the call settles as cancelled. */
  cancel?: AbortSignal;
  /** Aborts the call's signal with this reason (a ToolTimeoutError at the deadline, the cancel's reason). */
  abort(reason: unknown): void;
}

/**
 * Waits for `work` within its time: at the deadline the call's signal aborts with a ToolTimeoutError, and a
 * tool that heeds it still returns its own result (its words, its data) within the grace. One that does not
 * is given up on. A cancel settles it at once. The timer and the cancel listener go when it settles.
 */
export function settleWithinDeadline<T>(
  work: Promise<T>,
  options: CallDeadlineOptions,
): Promise<CallSettlement<T>> {
  const { cancel } = options;
  return new Promise((resolve) => {
    let expired = false;
    let settled = false;
    let timer: NodeJS.Timeout | undefined;
    const settle = (settlement: CallSettlement<T>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      cancel?.removeEventListener('abort', onCancel);
      resolve(settlement);
    };
    const onCancel = () => {
      options.abort(cancel?.reason);
      settle({ kind: 'cancelled' });
    };
    // A plain timer, referenced by the timer list until cleared: it keeps the process alive and always fires.
    timer = setTimeout(() => {
      expired = true;
      options.abort(new ToolTimeoutError(options.timeoutMs));
      timer = setTimeout(
        () => settle({ kind: 'timed_out', timeoutMs: options.timeoutMs }),
        options.graceMs ?? Math.min(STOP_GRACE_MS, options.timeoutMs),
      );
    }, options.timeoutMs);
    if (cancel?.aborted) onCancel();
    else cancel?.addEventListener('abort', onCancel, { once: true });
    work.then(
      (value) => settle({ kind: 'returned', value }),
      // After the deadline, what a tool throws is most likely its own abort: the call timed out.
      (error: unknown) =>
        settle(
          expired
            ? { kind: 'timed_out', timeoutMs: options.timeoutMs }
            : isToolTimeout(error)
              ? { kind: 'timed_out', timeoutMs: error.timeoutMs }
              : { kind: 'threw', error },
        ),
    );
  });
}
