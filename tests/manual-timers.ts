// Timers for tests: nothing fires until the test says so.
import type { Timers } from '../agent/timers.js';

/** Timers that only fire when the test says so. */
export class ManualTimers implements Timers {
  private next = 0;
  readonly pending = new Map<number, () => void>();
  setTimeout(callback: () => void): unknown {
    this.next += 1;
    this.pending.set(this.next, callback);
    return this.next;
  }
  clearTimeout(handle: unknown): void {
    this.pending.delete(handle as number);
  }
  /** Fires every timer set so far, once. */
  fire(): void {
    const due = [...this.pending.values()];
    this.pending.clear();
    for (const callback of due) callback();
  }
}
