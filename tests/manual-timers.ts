// Timers for tests: nothing fires until the test says so.
import type { Timers } from '../agent/timers.js';

/** Timers that only fire when the test says so. */
export class ManualTimers implements Timers {
  private next = 0;
  readonly pending = new Map<number, () => void>();
  /** The delay each pending timer was set with. */
  readonly delays = new Map<number, number>();
  setTimeout(callback: () => void, ms = 0): unknown {
    this.next += 1;
    this.pending.set(this.next, callback);
    this.delays.set(this.next, ms);
    return this.next;
  }
  clearTimeout(handle: unknown): void {
    this.pending.delete(handle as number);
    this.delays.delete(handle as number);
  }
  /** Fires every timer set so far, once. */
  fire(): void {
    const due = [...this.pending.values()];
    this.pending.clear();
    this.delays.clear();
    for (const callback of due) callback();
  }
}
