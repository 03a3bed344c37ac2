// The lease heartbeat: a worker keeps its run however long one step takes, and a cancel sent from another
// process reaches it mid-step. Timers are fired by the test, against the injected clock.
import { afterEach, describe, expect, it } from 'vitest';
import { text, toolCalls } from '../fakes/openai-server.js';
import { ManualTimers } from '../manual-timers.js';
import { alice, conversation, createHarness, type Harness, type TestRun } from './harness.js';

let harness: Harness;
afterEach(async () => harness?.close());

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('the lease heartbeat', () => {
  it('keeps a run whose one step outlasts the lease, so another process leaves it alone', async () => {
    const timers = new ManualTimers();
    harness = await createHarness({ store: 'sqlite', kernel: { runLeaseMs: 30_000, timers } });
    const other = harness.newKernel({ runLeaseMs: 30_000 });
    let othersView: { continued: number } | undefined;
    harness.fake.respond(async (_request, index) => {
      if (index > 0) return text('done');
      // One model call of 90 s: the worker's heartbeat fires every 10 s meanwhile.
      for (let second = 0; second < 90; second += 10) {
        harness.clock.advance(10_000);
        timers.fire();
        for (let i = 0; i < 5; i++) await tick();
      }
      othersView = await other.recover();
      return toolCalls([{ name: 'check_http', arguments: { url: 'https://a.example' } }]);
    });
    const runId = await harness.kernel.start({ text: 'slow', principal: alice, conversation });
    const run = (await harness.kernel.settled(runId)) as TestRun;
    expect(othersView).toEqual({ continued: 0, outcomeUnknown: 0 });
    expect(run.status).toBe('finished');
    expect(harness.probe.count('check_http')).toBe(1);
    expect(timers.pending.size).toBe(0);
  });

  it('hears a cancel sent from another process mid-step, and stops the step at once', async () => {
    const timers = new ManualTimers();
    harness = await createHarness({ store: 'sqlite', kernel: { runLeaseMs: 30_000, timers } });
    const other = harness.newKernel({ runLeaseMs: 30_000 });
    let cancelReply = '';
    let modelCalled: () => void = () => {};
    const inModel = new Promise<void>((resolve) => {
      modelCalled = resolve;
    });
    harness.fake.respond(async () => {
      modelCalled();
      // The model never answers on its own: only the cancel can end this step.
      await new Promise(() => {});
      return text('unreachable');
    });
    const runId = await harness.kernel.start({ text: 'slow', principal: alice, conversation });
    await inModel;
    cancelReply = (await other.cancel(runId, alice)).message;
    expect(cancelReply).toMatch(/will stop at its next step/);
    harness.clock.advance(10_000);
    timers.fire();
    const run = (await harness.kernel.settled(runId)) as TestRun;
    expect(run.status).toBe('cancelled');
    expect(run.cancelled).toMatchObject({ by: 'Alice' });
    expect(harness.fake.requests).toHaveLength(1);
    expect(harness.chat.ofKind('status').at(-1)).toMatchObject({ text: 'Cancelled by Alice' });
  });
});
