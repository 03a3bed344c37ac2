// Model outages and bad model output end in clear messages, with no crash and no lost run.
import { afterEach, describe, expect, it } from 'vitest';
import { createOpenAIModelClient } from '../../agent/model/model-client.js';
import { hang, malformed, status, text, toolCalls } from '../fakes/openai-server.js';
import { alice, conversation, createHarness, type Harness, runTask } from './harness.js';

let harness: Harness;
afterEach(async () => harness?.close());

describe('model failures', () => {
  it('honours a 429 with retry-after, then succeeds', async () => {
    harness = await createHarness();
    harness.fake.reply(status(429, { headers: { 'retry-after': '0' } }), text('ok after retry'));
    const run = await runTask(harness.kernel, { text: 'check', principal: alice, conversation });
    expect(run.status).toBe('finished');
    expect(run.answer).toBe('ok after retry');
    expect(harness.fake.requests).toHaveLength(2);
  });

  it('fails the run with a clear message when 5xx outlasts the retries', async () => {
    harness = await createHarness();
    harness.fake.reply(
      status(503, { headers: { 'retry-after': '0' } }),
      status(503, { headers: { 'retry-after': '0' } }),
      status(503, { headers: { 'retry-after': '0' } }),
    );
    const run = await runTask(harness.kernel, { text: 'check', principal: alice, conversation });
    expect(run.status).toBe('failed');
    expect(harness.fake.requests).toHaveLength(3);
    expect(run.error?.message).toMatch(/unavailable/i);
    expect(run.error?.message).toContain('503');
    expect(harness.chat.ofKind('result').at(-1)).toMatchObject({ ok: false });
    const stored = await harness.kernel.get(run.id);
    expect(stored.status).toBe('failed');
  });

  it('fails clearly when the model times out', async () => {
    harness = await createHarness({
      kernel: {},
    });
    const kernel = harness.newKernel({
      model: createOpenAIModelClient({
        baseURL: harness.fake.baseURL,
        apiKey: 'sk-test',
        model: 'fake',
        timeoutMs: 100,
        maxRetries: 0,
      }),
    });
    harness.fake.reply(hang());
    const run = await runTask(kernel, { text: 'check', principal: alice, conversation });
    expect(run.status).toBe('failed');
    expect(run.error?.message).toMatch(/timed out/i);
  });

  it('fails clearly when the model answers with something that is not JSON', async () => {
    harness = await createHarness();
    harness.fake.reply(malformed('this is not json'), malformed('still not json'), malformed('nope'));
    const run = await runTask(harness.kernel, { text: 'check', principal: alice, conversation });
    expect(run.status).toBe('failed');
    expect(run.error?.message.length).toBeGreaterThan(10);
    expect((await harness.kernel.get(run.id)).status).toBe('failed');
  });

  it('keeps a run that a tool throws in, and tells the model the error is transient', async () => {
    harness = await createHarness();
    harness.fake.reply(toolCalls([{ name: 'flaky', arguments: {} }]), text('flaky failed'));
    const run = await runTask(harness.kernel, { text: 'try', principal: alice, conversation });
    expect(run.status).toBe('finished');
    const result = JSON.parse(harness.fake.requests[1]!.body.messages!.at(-1)!.content as string);
    expect(result.error).toMatchObject({ class: 'transient' });
    expect(result.error.message).toContain('connection reset by peer');
  });

  it('times out a tool that never returns, and carries on: the model reads a failed result, not an error', async () => {
    harness = await createHarness();
    harness.fake.reply(toolCalls([{ name: 'never_returns', arguments: {} }]), text('it hung'));
    const run = await runTask(harness.kernel, { text: 'try', principal: alice, conversation });
    expect(run.status).toBe('finished');
    const result = JSON.parse(harness.fake.requests[1]!.body.messages!.at(-1)!.content as string);
    expect(result).toEqual({
      tool: 'never_returns',
      ok: false,
      summary: 'never_returns timed out after 200 ms.',
      data: { timed_out: true, timeout_ms: 200 },
    });
  });
});
