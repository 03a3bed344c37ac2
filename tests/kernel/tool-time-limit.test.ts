// limits.tool_timeout is the upper bound on any one tool call: a tool's own timeoutMs applies only below it, and
// the tool sees the limit it got through ctx.deadline and ctx.timeoutMs. Its signal tells a timeout from a cancel.
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool, type ToolContext } from '../../agent/tool.js';
import { isToolTimeout } from '../../agent/tool-timeout.js';
import { alice, conversation, createHarness, type Harness, runTask } from './harness.js';

let harness: Harness | undefined;
afterEach(async () => harness?.close());

/** A read tool with its own time limit that reports the limit the kernel gave it. */
function limitProbe(name: string, timeoutMs: number, seen: Partial<ToolContext>[]) {
  return defineTool({
    name,
    description: 'Reports its time limit. Use when testing limits. Do not use otherwise.',
    input: z.object({}),
    risk: 'read',
    timeoutMs,
    execute: async (ctx) => {
      seen.push({ timeoutMs: ctx.timeoutMs, deadline: ctx.deadline });
      return { ok: true, summary: `${name} got ${ctx.timeoutMs} ms` };
    },
  });
}

describe('limits.tool_timeout', () => {
  it("caps a tool's own longer timeoutMs, and leaves a shorter one alone", async () => {
    const seen: Partial<ToolContext>[] = [];
    harness = await createHarness({
      model: false,
      kernel: {
        limits: { toolTimeoutMs: 1_000 },
        tools: [limitProbe('slow_probe', 60_000, seen), limitProbe('quick_probe', 300, seen)],
      },
    });
    const before = Date.now();
    const slow = await runTask(harness.kernel, { text: 'slow_probe', principal: alice, conversation });
    expect(slow.answer).toBe('slow_probe got 1000 ms');
    const quick = await runTask(harness.kernel, { text: 'quick_probe', principal: alice, conversation });
    expect(quick.answer).toBe('quick_probe got 300 ms');
    // The deadline is on the real clock the enforcing timer runs on, the call's start plus its limit.
    expect(seen[0]!.deadline).toBeGreaterThanOrEqual(before + 1_000);
    expect(seen[0]!.deadline).toBeLessThanOrEqual(Date.now() + 1_000);
  });
});

describe("a tool call's signal", () => {
  /** A read tool that waits for its signal and reports why it aborted. */
  function abortWatcher(reasons: unknown[], started: string[] = []) {
    return defineTool({
      name: 'wait_for_abort',
      description: 'Waits until its call is aborted. Use when testing aborts. Do not use otherwise.',
      input: z.object({}),
      risk: 'read',
      execute: (ctx) =>
        new Promise((resolve) => {
          started.push(ctx.runId);
          ctx.signal.addEventListener('abort', () => {
            reasons.push(ctx.signal.reason);
            resolve({ ok: false, summary: `aborted: ${(ctx.signal.reason as Error).message}` });
          });
        }),
    });
  }

  it('aborts at the limit with a timeout, and the tool reports it in its own words', async () => {
    const reasons: unknown[] = [];
    harness = await createHarness({
      model: false,
      kernel: { limits: { toolTimeoutMs: 300 }, tools: [abortWatcher(reasons)] },
    });
    const run = await runTask(harness.kernel, { text: 'wait_for_abort', principal: alice, conversation });
    expect(run.answer).toBe('aborted: timed out after 300 ms');
    expect(isToolTimeout(reasons[0])).toBe(true);
  });

  it("aborts at once on a cancel, with the cancel's reason, not a timeout", async () => {
    const reasons: unknown[] = [];
    const calls: string[] = [];
    harness = await createHarness({
      model: false,
      kernel: { limits: { toolTimeoutMs: 60_000 }, tools: [abortWatcher(reasons, calls)] },
    });
    const runId = await harness.kernel.start({ text: 'wait_for_abort', principal: alice, conversation });
    const started = Date.now();
    for (let i = 0; i < 200 && calls.length === 0; i++) await new Promise((resolve) => setImmediate(resolve));
    expect(calls).toEqual([runId]);
    await harness.kernel.cancel(runId, alice);
    const run = await harness.kernel.settled(runId);
    expect(run.status).toBe('cancelled');
    for (let i = 0; i < 200 && reasons.length === 0; i++)
      await new Promise((resolve) => setImmediate(resolve));
    expect(reasons).toHaveLength(1);
    expect(isToolTimeout(reasons[0])).toBe(false);
    expect((reasons[0] as Error).message).toBe('cancelled by Alice');
    expect(Date.now() - started).toBeLessThan(10_000);
  });
});
