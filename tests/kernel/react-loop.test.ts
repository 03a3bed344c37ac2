// The react engine's tool loop against the real openai SDK and the fake server.
import { afterEach, describe, expect, it } from 'vitest';
import { text, toolCalls } from '../fakes/openai-server.js';
import { alice, conversation, createHarness, type Harness, runTask, toolMessages } from './harness.js';

let harness: Harness;
afterEach(async () => harness?.close());

describe('react loop', () => {
  it('runs several read calls from one turn concurrently, feeds results back, and finishes', async () => {
    harness = await createHarness();
    harness.fake.reply(
      toolCalls([
        { name: 'check_http', arguments: { url: 'https://a.example' } },
        { name: 'check_http', arguments: { url: 'https://b.example' } },
        { name: 'read_logs', arguments: { service: 'api' } },
      ]),
      text('Both sites are up.'),
    );
    const run = await runTask(harness.kernel, { text: 'are a and b up?', principal: alice, conversation });

    expect(run.status).toBe('finished');
    expect(run.answer).toBe('Both sites are up.');
    expect(harness.probe.calls.map((call) => call.tool)).toEqual(['check_http', 'check_http', 'read_logs']);
    expect(harness.probe.maxInFlight).toBe(3);
    const second = harness.fake.requests[1]!.body;
    const results = toolMessages(second) as { tool: string; ok: boolean; summary: string }[];
    expect(results.map((result) => result.summary)).toEqual([
      'https://a.example answered 200',
      'https://b.example answered 200',
      '3 lines from api',
    ]);
    const assistant = second.messages!.find((message) => message.role === 'assistant')!;
    expect(assistant.tool_calls).toHaveLength(3);
    expect(run.usage).toMatchObject({ modelCalls: 2, toolCalls: 3, promptTokens: 20, completionTokens: 10 });
    expect(harness.chat.ofKind('result').at(-1)).toMatchObject({ ok: true, text: 'Both sites are up.' });
    expect(harness.chat.ofKind('status').at(-1)).toMatchObject({ text: 'Done', tone: 'success' });
  });

  it('runs a write call alone, after the reads before it, in order', async () => {
    harness = await createHarness();
    harness.fake.reply(
      toolCalls([
        { name: 'check_http', arguments: { url: 'https://a.example' } },
        { name: 'write_note', arguments: { text: 'checked' } },
        { name: 'check_http', arguments: { url: 'https://b.example' } },
      ]),
      text('done'),
    );
    await runTask(harness.kernel, { text: 'check and note', principal: alice, conversation });
    expect(harness.probe.calls.map((call) => call.tool)).toEqual(['check_http', 'write_note', 'check_http']);
    expect(harness.probe.maxInFlight).toBe(1);
  });

  it('ends when the model calls the built-in finish', async () => {
    harness = await createHarness();
    harness.fake.reply(toolCalls([{ name: 'finish', arguments: { answer: 'All good.' } }]));
    const run = await runTask(harness.kernel, { text: 'check', principal: alice, conversation });
    expect(run.status).toBe('finished');
    expect(run.answer).toBe('All good.');
    expect(harness.fake.requests).toHaveLength(1);
  });

  it('sends malformed arguments back as an invalid-argument error, and the model can fix them', async () => {
    harness = await createHarness();
    harness.fake.reply(
      toolCalls([{ name: 'check_http', arguments: '{"url": "https://a.example"' }]),
      toolCalls([{ name: 'check_http', arguments: '```json\n{"url": "https://a.example",}\n```' }]),
      text('fixed'),
    );
    const run = await runTask(harness.kernel, { text: 'check a', principal: alice, conversation });
    expect(run.status).toBe('finished');
    const firstError = toolMessages(harness.fake.requests[1]!.body)[0] as { error: { class: string } };
    expect(firstError.error.class).toBe('invalid_argument');
    expect(harness.probe.count('check_http')).toBe(1);
  });

  it('refuses an unknown tool name, including prototype names, and lists the tools', async () => {
    harness = await createHarness();
    harness.fake.reply(
      toolCalls([
        { name: 'delete_everything', arguments: {} },
        { name: '__proto__', arguments: {} },
        { name: 'constructor', arguments: {} },
      ]),
      text('cannot'),
    );
    const run = await runTask(harness.kernel, { text: 'do it', principal: alice, conversation });
    expect(run.status).toBe('finished');
    const errors = toolMessages(harness.fake.requests[1]!.body) as {
      error: { class: string; message: string };
    }[];
    expect(errors).toHaveLength(3);
    for (const error of errors) {
      expect(error.error.class).toBe('refused_by_policy');
      expect(error.error.message).toContain('check_http');
    }
  });

  it('offers the tools as JSON Schema with the built-ins, and labels tool output as untrusted', async () => {
    harness = await createHarness();
    harness.fake.reply(text('hi'));
    await runTask(harness.kernel, { text: 'hello', principal: alice, conversation });
    const body = harness.fake.requests[0]!.body;
    const names = body.tools!.map((tool) => tool.function.name);
    expect(names).toEqual(expect.arrayContaining(['check_http', 'restart_service', 'ask_user', 'finish']));
    const restart = body.tools!.find((tool) => tool.function.name === 'restart_service')!;
    expect(restart.function.parameters).toMatchObject({
      type: 'object',
      properties: { service: { enum: ['api', 'worker'] } },
      required: ['service'],
    });
    expect(body.messages![0]!.content).toContain('UNTRUSTED DATA');
  });

  it('returns the earlier result for a duplicate call instead of running it again', async () => {
    harness = await createHarness();
    harness.fake.reply(
      toolCalls([{ name: 'read_logs', arguments: { service: 'api' } }]),
      toolCalls([{ name: 'read_logs', arguments: { service: 'api' } }]),
      text('done'),
    );
    const run = await runTask(harness.kernel, { text: 'logs', principal: alice, conversation });
    expect(harness.probe.count('read_logs')).toBe(1);
    const repeat = toolMessages(harness.fake.requests[2]!.body)[1] as { repeat_of: string };
    expect(repeat.repeat_of).toBeTruthy();
    expect(
      run.events
        .filter((event) => event.type === 'tool_result')
        .map((event) => event.type === 'tool_result' && event.repeated),
    ).toEqual([false, true]);
  });

  it('redacts secrets in tool output before the model and the chat see them', async () => {
    harness = await createHarness();
    harness.fake.reply(
      toolCalls([{ name: 'read_logs', arguments: { service: 'api' } }]),
      text('found xoxb-123456789012-abcdefghijkl'),
    );
    const run = await runTask(harness.kernel, { text: 'logs', principal: alice, conversation });
    const sent = harness.fake.requests[1]!.rawBody;
    expect(sent).not.toContain('xoxb-123456789012');
    expect(sent).toContain('REDACTED');
    expect(run.answer).not.toContain('xoxb-123456789012');
    expect(JSON.stringify(harness.chat.posts)).not.toContain('xoxb-123456789012');
  });

  it('gives a later run in the same thread a summary of the earlier ones', async () => {
    harness = await createHarness();
    harness.fake.reply(text('api is healthy'), text('still healthy'));
    await runTask(harness.kernel, { text: 'is api healthy?', principal: alice, conversation });
    await runTask(harness.kernel, { text: 'and now?', principal: alice, conversation });
    const system = harness.fake.requests[1]!.body.messages![0]!.content as string;
    expect(system).toContain('Earlier in this thread');
    expect(system).toContain('is api healthy?');
    expect(system).toContain('api is healthy');
  });

  it("adds the team's notes to every system prompt, before the thread's history, the same on every turn", async () => {
    harness = await createHarness({
      kernel: { instructions: 'The payments API lives at https://payments.internal/healthz.' },
    });
    harness.fake.reply(toolCalls([{ name: 'read_logs', arguments: { service: 'api' } }]), text('fine'));
    await runTask(harness.kernel, { text: 'is payments up?', principal: alice, conversation });
    const [first, second] = harness.fake.requests.map((request) => request.body.messages![0]!.content);
    expect(first).toContain('Notes from the team');
    expect(first).toContain('https://payments.internal/healthz');
    expect(second).toBe(first);
  });

  it('sends no notes section when the team wrote none', async () => {
    harness = await createHarness();
    harness.fake.reply(text('fine'));
    await runTask(harness.kernel, { text: 'hello', principal: alice, conversation });
    expect(harness.fake.requests[0]!.body.messages![0]!.content).not.toContain('Notes from the team');
  });
});
