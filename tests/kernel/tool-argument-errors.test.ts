// A tool that finds its arguments wrong only when it runs (a query the server cannot parse) throws
// ToolArgumentError: the model reads invalid_argument with the tool's words, and the circuit breaker stays closed.
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool } from '../../agent/tool.js';
import { ToolArgumentError } from '../../agent/tool-errors.js';
import { text, toolCalls } from '../fakes/openai-server.js';
import { alice, conversation, createHarness, type Harness, runTask } from './harness.js';

let harness: Harness;
afterEach(async () => harness?.close());

let calls = 0;
const strictQuery = defineTool({
  name: 'strict_query',
  description: 'Runs a query. Use it when asked. Do not use it otherwise.',
  input: z.object({ query: z.string() }),
  risk: 'read',
  execute: async (_context, input) => {
    calls += 1;
    throw new ToolArgumentError(`1:${input.query.length}: parse error: unexpected end of input`);
  },
});

describe('a tool argument error', () => {
  it('reaches the model as invalid_argument, every time, without opening the breaker', async () => {
    calls = 0;
    harness = await createHarness({
      kernel: { tools: [strictQuery], limits: { maxSteps: 20, toolTimeoutMs: 200 } },
    });
    const query = (n: number) =>
      toolCalls([{ name: 'strict_query', arguments: { query: `up{${'x'.repeat(n)}` } }]);
    // Three failures in a row open a breaker; three calls that find nothing new make the run ask its requester.
    harness.fake.reply(query(1), query(2), query(3));
    const first = await runTask(harness.kernel, { text: 'query it', principal: alice, conversation });
    expect(first.status).toBe('waiting_for_user');
    expect(calls).toBe(3);

    harness.fake.reply(query(4), text('I could not write a valid query.'));
    const second = await runTask(harness.kernel, {
      text: 'query it again',
      principal: alice,
      conversation: { ...conversation, threadId: 't2' },
    });
    expect(second.status).toBe('finished');
    // These were the model's mistakes, not the tool's: the fourth call ran too.
    expect(calls).toBe(4);
    const last = JSON.parse(harness.fake.requests.at(-1)!.body.messages!.at(-1)!.content as string);
    expect(last).toEqual({
      tool: 'strict_query',
      ok: false,
      error: {
        class: 'invalid_argument',
        message: '1:7: parse error: unexpected end of input',
        what_to_do: 'Fix the arguments; do not retry the same call unchanged.',
      },
    });
  });
});
