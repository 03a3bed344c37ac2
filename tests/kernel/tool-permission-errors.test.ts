// A tool whose target refuses it for want of rights throws ToolPermissionError: the model reads permission_denied
// with the target's words (redacted); the circuit breaker does not count it (settled-call-outcome.ts).
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool } from '../../agent/tool.js';
import { ToolPermissionError } from '../../agent/tool-errors.js';
import { text, toolCalls } from '../fakes/openai-server.js';
import { alice, conversation, createHarness, type Harness, runTask, toolMessages } from './harness.js';

let harness: Harness;
afterEach(async () => harness?.close());

const forbidden = defineTool({
  name: 'list_pods',
  description: 'Lists pods. Use it when asked about pods.',
  input: z.object({ namespace: z.string() }),
  risk: 'read',
  execute: async (_context, input) => {
    throw new ToolPermissionError(
      `pods is forbidden in ${input.namespace} (token ghp_abcdefghijklmnopqrstuvwxyz0123456789)`,
    );
  },
});

describe('a tool permission error', () => {
  it('reaches the model as permission_denied, with the words of the target redacted', async () => {
    harness = await createHarness({ kernel: { tools: [forbidden], limits: { toolTimeoutMs: 200 } } });
    const call = (namespace: string) => toolCalls([{ name: 'list_pods', arguments: { namespace } }]);
    harness.fake.reply(call('a'), call('b'), call('c'), call('d'), text('I may not list pods.'));
    const run = await runTask(harness.kernel, { text: 'list pods', principal: alice, conversation });
    const last = harness.fake.requests.at(-1);
    const errors = toolMessages(last?.body ?? {}) as Array<{ error?: { class: string; message: string } }>;
    expect(errors.length).toBeGreaterThanOrEqual(1);
    for (const message of errors) expect(message.error?.class).toBe('permission_denied');
    expect(errors[0]?.error?.message).toMatch(/^list_pods: pods is forbidden in a/);
    expect(JSON.stringify(errors)).not.toContain('ghp_abcdefghijklmnopqrstuvwxyz0123456789');
    expect(run.status).toBeDefined();
  });
});
