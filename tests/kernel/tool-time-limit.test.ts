// limits.tool_timeout is the upper bound on any one tool call: a tool's own timeoutMs applies only below it, and
// the tool sees the limit it got through ctx.deadline and ctx.timeoutMs.
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool, type ToolContext } from '../../agent/tool.js';
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
