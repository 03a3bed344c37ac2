// A deadline for every Store command with one timer between them, instead of a timer and an AbortSignal per
// command: the happy path allocates one small record and no Error. Every command gets the same time, so their
// deadlines come in the order they started, and the one timer only ever waits for the oldest command.
import { systemTimers, type Timers } from '../timers.js';

interface Watched {
  deadline: number;
  settled: boolean;
  expire: () => void;
}

export class CommandDeadlines {
  private readonly queue: Watched[] = [];
  private head = 0;
  private timer: unknown;

  constructor(
    private readonly timeoutMs: number,
    private readonly now: () => number = Date.now,
    private readonly timers: Timers = systemTimers,
  ) {}

  /** Settles as `command` does, or rejects with `timedOut()` once `timeoutMs` has passed without an answer. */
  watch<T>(command: Promise<T>, timedOut: () => Error): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const watched: Watched = {
        deadline: this.now() + this.timeoutMs,
        settled: false,
        expire: () => reject(timedOut()),
      };
      this.queue.push(watched);
      if (this.timer === undefined) this.arm();
      command.then(
        (value) => {
          watched.settled = true;
          resolve(value);
        },
        (error: unknown) => {
          watched.settled = true;
          reject(error);
        },
      );
    });
  }

  /** Commands still waiting for an answer (tests). */
  get waiting(): number {
    let count = 0;
    for (let i = this.head; i < this.queue.length; i += 1) if (!this.queue[i]!.settled) count += 1;
    return count;
  }

  private arm(): void {
    this.dropSettled();
    const oldest = this.queue[this.head];
    if (!oldest) {
      this.timer = undefined;
      return;
    }
    this.timer = this.timers.setTimeout(() => this.expireDue(), Math.max(0, oldest.deadline - this.now()));
  }

  private expireDue(): void {
    const now = this.now();
    for (; this.head < this.queue.length; this.head += 1) {
      const watched = this.queue[this.head]!;
      if (watched.settled) continue;
      if (watched.deadline > now) break;
      watched.settled = true;
      watched.expire();
    }
    this.arm();
  }

  /** Forgets answered commands at the front, compacting now and then so the queue does not grow. */
  private dropSettled(): void {
    while (this.head < this.queue.length && this.queue[this.head]!.settled) this.head += 1;
    if (this.head > 1024 && this.head * 2 > this.queue.length) {
      this.queue.splice(0, this.head);
      this.head = 0;
    }
  }
}
