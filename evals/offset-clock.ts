// The scenario's clock: real time, which a scenario can move forward (an approval nobody clicks expires) without
// waiting. Timers keep real time; only what opsbot reads as "now" jumps.
import type { Clock } from '../agent/clock.js';

export class OffsetClock implements Clock {
  private offset = 0;
  now(): number {
    return Date.now() + this.offset;
  }
  advance(ms: number): void {
    this.offset += ms;
  }
}
