// Bad input ends in a clear message with no crash and no lost run.
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Kernel } from '../../agent/kernel.js';
import { MemoryStore } from '../../agent/store/memory-store.js';
import { defineTool } from '../../agent/tool.js';
import { alice, conversation, createHarness, type Harness, runTask } from './harness.js';

let harness: Harness;
afterEach(async () => harness?.close());

describe('bad input', () => {
  it('an empty task fails with a clear message and is stored', async () => {
    harness = await createHarness();
    const run = await runTask(harness.kernel, { text: '   ', principal: alice, conversation });
    expect(run.status).toBe('failed');
    expect(run.error?.message).toMatch(/The task is empty/);
    expect((await harness.kernel.get(run.id)).status).toBe('failed');
    expect(harness.fake.requests).toHaveLength(0);
  });

  it('a 200 KB task fails with a clear message naming the limit, and is stored', async () => {
    harness = await createHarness();
    const run = await runTask(harness.kernel, {
      text: 'x'.repeat(200 * 1024),
      principal: alice,
      conversation,
    });
    expect(run.status).toBe('failed');
    expect(run.error?.message).toContain('204,800 characters');
    expect(run.error?.message).toContain('limits.max_task_chars');
    expect(harness.fake.requests).toHaveLength(0);
  });

  it('refuses duplicate, malformed, undescribed and reserved tool definitions at start-up', () => {
    const make = (
      name: string,
      description = 'A tool that does a thing. Use when needed. Do not use otherwise.',
    ) =>
      defineTool({
        name,
        description,
        input: z.object({}),
        risk: 'read',
        execute: async () => ({ ok: true, summary: '' }),
      });
    expect(() => make('Bad-Name')).toThrow(/the name must match/);
    expect(() => make('no_description', '')).toThrow(/description/);
    expect(() => new Kernel({ store: new MemoryStore(), tools: [make('same'), make('same')] })).toThrow(
      /Two tools are named "same"/,
    );
    expect(() => new Kernel({ store: new MemoryStore(), tools: [make('finish')] })).toThrow(/reserved/);
  });

  it('refuses an impact that is not one short line, and a describeCall that is not a function', () => {
    const make = (extra: Record<string, unknown>) => () =>
      defineTool({
        name: 'restart_api',
        description: 'Restart the api. Use when it is stuck. Do not use otherwise.',
        input: z.object({}),
        risk: 'danger',
        execute: async () => ({ ok: true, summary: '' }),
        ...extra,
      });
    for (const impact of ['', 'restarts the api\nand the worker', 'x'.repeat(201), 42])
      expect(make({ impact })).toThrow(/impact must be one line of at most 200 characters/);
    expect(make({ describeCall: 'systemctl restart api' })).toThrow(
      /describeCall\(input\) must be a function/,
    );
    expect(
      make({ impact: 'about 20 s of 502s', describeCall: () => 'systemctl restart api' })(),
    ).toMatchObject({
      impact: 'about 20 s of 502s',
    });
  });
});
