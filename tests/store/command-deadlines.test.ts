// Store command deadlines: one timer for every command, an answer in time settles as it came, silence rejects.
import { describe, expect, it } from 'vitest';
import { CommandDeadlines } from '../../agent/store/command-deadlines.js';
import { ManualTimers } from '../manual-timers.js';

const tick = () => new Promise((resolve) => setImmediate(resolve));

function deferred<T>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((done) => {
    resolve = done;
  });
  return { promise, resolve };
}

describe('CommandDeadlines', () => {
  it('passes answers through and rejects only the command that got none in time', async () => {
    let now = 0;
    const timers = new ManualTimers();
    const deadlines = new CommandDeadlines(2_000, () => now, timers);
    const answered = deferred<string>();
    const silent = deferred<string>();
    const first = deadlines.watch(answered.promise, () => new Error('no answer'));
    now = 500;
    const second = deadlines.watch(silent.promise, () => new Error('no answer'));
    // One timer for both, set for the oldest command.
    expect(timers.pending.size).toBe(1);
    answered.resolve('OK');
    expect(await first).toBe('OK');

    now = 2_000;
    timers.fire();
    await tick();
    // The first command's deadline passed, but it had its answer; the second still has 500 ms.
    expect(deadlines.waiting).toBe(1);
    expect(timers.pending.size).toBe(1);
    now = 2_500;
    timers.fire();
    await expect(second).rejects.toThrow('no answer');
    expect(deadlines.waiting).toBe(0);
    expect(timers.pending.size).toBe(0);
  });

  it('keeps no timer and a short queue while every command is answered', async () => {
    let now = 0;
    const timers = new ManualTimers();
    const deadlines = new CommandDeadlines(2_000, () => now, timers);
    for (let round = 0; round < 5; round += 1) {
      await Promise.all(
        Array.from({ length: 1_000 }, (_, i) => deadlines.watch(Promise.resolve(i), () => new Error('x'))),
      );
      now += 2_000;
      timers.fire();
    }
    expect(deadlines.waiting).toBe(0);
    expect(timers.pending.size).toBe(0);
  });
});
