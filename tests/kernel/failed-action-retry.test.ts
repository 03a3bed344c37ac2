// A failed action marks the run, unless the very same call later succeeds in that run.
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool } from '../../agent/tool.js';
import { text, toolCalls } from '../fakes/openai-server.js';
import { alice, conversation, createHarness, type Harness, runTask } from './harness.js';

let harness: Harness;
afterEach(async () => harness?.close());

/** A write tool whose first call for each service fails, as a deploy hook that is briefly locked. */
function lockedOnce() {
  const seen = new Set<string>();
  return defineTool({
    name: 'mark_deployed',
    description: 'Mark a service as deployed. Use after a deploy. Do not use otherwise.',
    input: z.object({ service: z.string().describe('The service to mark') }),
    risk: 'write',
    execute: async (_ctx, input) => {
      if (seen.has(input.service)) return { ok: true, summary: `${input.service} marked as deployed` };
      seen.add(input.service);
      return { ok: false, summary: `the deploy log for ${input.service} is locked` };
    },
  });
}

const mark = (service: string) => toolCalls([{ name: 'mark_deployed', arguments: { service } }]);

describe('a failed action', () => {
  it('is cleared when the same call succeeds later in the run', async () => {
    harness = await createHarness({ kernel: { tools: [lockedOnce()] } });
    harness.fake.reply(mark('api'), mark('api'), text('Marked.'));
    const run = await runTask(harness.kernel, { text: 'mark api deployed', principal: alice, conversation });
    expect(harness.chat.ofKind('result').map((result) => result.ok)).toEqual([false, true, true]);
    expect(run.failedActions).toEqual([]);
    expect(run.ok).toBe(true);
    expect(harness.chat.ofKind('status').at(-1)?.text).toBe('Done');
  });

  it('stays when only another call succeeds', async () => {
    harness = await createHarness({ kernel: { tools: [lockedOnce()] } });
    harness.fake.reply(mark('api'), mark('worker'), mark('worker'), text('Marked.'));
    const run = await runTask(harness.kernel, { text: 'mark both deployed', principal: alice, conversation });
    expect(run.failedActions.map((failed) => failed.summary)).toEqual(['the deploy log for api is locked']);
    expect(run.ok).toBe(false);
    expect(harness.chat.ofKind('status').at(-1)?.text).toBe('Done, with a problem');
  });
});
