// The one RunQueue contract suite: the in-process queue runs it now, and the BullMQ queue will run the same.
// Nothing here assumes the queue hands out jobs synchronously: tests wait for what the handler saw, event by event.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AdvanceRun, RunQueue } from '../../agent/run-queue.js';

export interface RunQueueFixture {
  queue: RunQueue;
  /** Closes what the fixture opened and deletes what the test left (a Redis queue's keys). */
  cleanup?: () => Promise<void>;
}

/** What the handler has done so far, with a way to hold a run's advance until the test lets it go. */
class Advances {
  readonly started: string[] = [];
  readonly finished: string[] = [];
  inFlight = 0;
  maxInFlight = 0;
  /** The same run advanced twice at once: a queue must never do that. */
  overlaps = 0;
  private readonly running = new Map<string, number>();
  private readonly holds = new Map<string, (() => void)[]>();
  private readonly held = new Set<string>();
  private readonly waiters: { done: () => boolean; resolve: () => void }[] = [];
  private failures = new Map<string, 'reject' | 'throw'>();

  /** The next advances of these runs wait until `release`. */
  hold(...runIds: string[]): void {
    for (const runId of runIds) this.held.add(runId);
  }

  /** Lets the advance of this run that is waiting (or the next one to start) finish. */
  release(runId: string): void {
    this.held.delete(runId);
    const waiting = this.holds.get(runId) ?? [];
    this.holds.delete(runId);
    for (const resolve of waiting) resolve();
  }

  /** This run's advances fail: by rejecting, or by throwing before they return a promise. */
  fail(runId: string, how: 'reject' | 'throw'): void {
    this.failures.set(runId, how);
  }

  count(runId: string): number {
    return this.started.filter((started) => started === runId).length;
  }

  /** Resolves once the condition holds; checked after every start and finish. */
  until(done: () => boolean): Promise<void> {
    if (done()) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ done, resolve }));
  }

  readonly handler: AdvanceRun = (runId) => {
    if (this.failures.get(runId) === 'throw') {
      this.record(runId, 'start');
      this.record(runId, 'finish');
      throw new Error(`advancing ${runId} threw`);
    }
    return this.advance(runId);
  };

  private async advance(runId: string): Promise<void> {
    this.record(runId, 'start');
    try {
      if (this.held.has(runId)) {
        await new Promise<void>((resolve) =>
          this.holds.set(runId, [...(this.holds.get(runId) ?? []), resolve]),
        );
      }
      if (this.failures.get(runId) === 'reject') throw new Error(`advancing ${runId} failed`);
    } finally {
      this.record(runId, 'finish');
    }
  }

  private record(runId: string, what: 'start' | 'finish'): void {
    const running = this.running.get(runId) ?? 0;
    if (what === 'start') {
      if (running > 0) this.overlaps += 1;
      this.running.set(runId, running + 1);
      this.started.push(runId);
      this.inFlight += 1;
      this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    } else {
      this.running.set(runId, running - 1);
      this.finished.push(runId);
      this.inFlight -= 1;
    }
    for (const waiter of [...this.waiters]) {
      if (!waiter.done()) continue;
      this.waiters.splice(this.waiters.indexOf(waiter), 1);
      waiter.resolve();
    }
  }
}

export function runRunQueueContract(name: string, create: () => Promise<RunQueueFixture>): void {
  describe(`RunQueue contract: ${name}`, () => {
    let fixture: RunQueueFixture;
    let queue: RunQueue;
    let advances: Advances;

    beforeEach(async () => {
      fixture = await create();
      queue = fixture.queue;
      advances = new Advances();
    });

    afterEach(async () => {
      // Let anything still held finish, so close() never waits on a test's gate.
      for (const runId of new Set(advances.started)) advances.release(runId);
      await queue.close();
      await fixture.cleanup?.();
    });

    /** What `idle()` saw when it resolved: it must only resolve once everything has finished. */
    function idleState(): Promise<{ finished: number; inFlight: number }> {
      return queue.idle().then(() => ({ finished: advances.finished.length, inFlight: advances.inFlight }));
    }

    it('advances every enqueued run, including runs enqueued before the worker started', async () => {
      await queue.enqueue('run_early');
      queue.process(advances.handler, { concurrency: 2 });
      for (const runId of ['run_a', 'run_b', 'run_c']) await queue.enqueue(runId);
      await advances.until(() => advances.finished.length === 4);
      await queue.idle();
      expect([...advances.started].sort()).toEqual(['run_a', 'run_b', 'run_c', 'run_early']);
      expect(advances.overlaps).toBe(0);
    });

    it('advances a run enqueued twice before it starts once', async () => {
      queue.process(advances.handler, { concurrency: 1 });
      advances.hold('run_blocker');
      await queue.enqueue('run_blocker');
      await advances.until(() => advances.count('run_blocker') === 1);
      await queue.enqueue('run_a');
      await queue.enqueue('run_a');
      advances.release('run_blocker');
      await advances.until(() => advances.finished.includes('run_a'));
      await queue.idle();
      expect(advances.count('run_a')).toBe(1);
    });

    it('advances a run enqueued again while it is being advanced once more, after the first advance ends', async () => {
      // A free slot must not start the second advance beside the first: the worker's lease would turn it away.
      queue.process(advances.handler, { concurrency: 2 });
      advances.hold('run_a');
      await queue.enqueue('run_a');
      await advances.until(() => advances.count('run_a') === 1);
      await queue.enqueue('run_a');
      await queue.enqueue('run_a');
      advances.release('run_a');
      await advances.until(() => advances.finished.filter((runId) => runId === 'run_a').length === 2);
      await queue.idle();
      expect(advances.count('run_a')).toBe(2);
      expect(advances.overlaps).toBe(0);
    });

    it('runs at most `concurrency` advances at once, and uses them all', async () => {
      const runIds = ['run_1', 'run_2', 'run_3', 'run_4', 'run_5', 'run_6'];
      advances.hold(...runIds);
      queue.process(advances.handler, { concurrency: 2 });
      for (const runId of runIds) await queue.enqueue(runId);
      await advances.until(() => advances.started.length === 2);
      expect(advances.inFlight).toBe(2);
      // Each advance that ends makes room for exactly one more.
      for (let done = 0; done < runIds.length; done++) {
        advances.release(advances.started[done]!);
        await advances.until(
          () => advances.finished.length === done + 1 && advances.started.length === Math.min(done + 3, 6),
        );
        expect(advances.inFlight).toBe(Math.min(2, runIds.length - done - 1));
      }
      await queue.idle();
      expect(advances.maxInFlight).toBe(2);
      expect([...advances.started].sort()).toEqual(runIds);
    });

    it('goes on after an advance that rejects or throws', async () => {
      advances.fail('run_rejects', 'reject');
      advances.fail('run_throws', 'throw');
      queue.process(advances.handler, { concurrency: 1 });
      await queue.enqueue('run_rejects');
      await queue.enqueue('run_throws');
      await queue.enqueue('run_fine');
      await advances.until(() => advances.finished.includes('run_fine'));
      await queue.idle();
      expect(advances.started).toEqual(['run_rejects', 'run_throws', 'run_fine']);
      // The queue still takes work afterwards.
      await queue.enqueue('run_later');
      await advances.until(() => advances.finished.includes('run_later'));
    });

    it('resolves idle() at once when nothing waits or runs, and otherwise only once all has finished', async () => {
      await queue.idle();
      queue.process(advances.handler, { concurrency: 1 });
      await queue.idle();
      advances.hold('run_a', 'run_b');
      await queue.enqueue('run_a');
      await queue.enqueue('run_b');
      await advances.until(() => advances.started.length === 1);
      const idle = idleState();
      advances.release('run_a');
      await advances.until(() => advances.count('run_b') === 1);
      advances.release('run_b');
      expect(await idle).toEqual({ finished: 2, inFlight: 0 });
    });

    it('close() waits for the advances running, and hands out nothing more', async () => {
      queue.process(advances.handler, { concurrency: 1 });
      advances.hold('run_running');
      await queue.enqueue('run_running');
      await queue.enqueue('run_waiting');
      await advances.until(() => advances.started.length === 1);
      const closed = queue.close().then(() => ({ finished: [...advances.finished] }));
      advances.release('run_running');
      expect(await closed).toEqual({ finished: ['run_running'] });
      await queue.idle();
      expect(advances.started).toEqual(['run_running']);
    });

    it('ignores runs enqueued after close()', async () => {
      queue.process(advances.handler, { concurrency: 1 });
      await queue.close();
      await queue.enqueue('run_late');
      await queue.idle();
      expect(advances.started).toEqual([]);
    });
  });
}
