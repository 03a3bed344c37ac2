// The fake OpenAI server itself, checked with the real SDK so other tests can trust it.
import OpenAI from 'openai';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createOpenAIModelClient } from '../../agent/model/model-client.js';
import type { ModelMessage } from '../../agent/model-message.js';
import {
  type FakeOpenAIServer,
  hang,
  startFakeOpenAIServer,
  text,
  toolCalls,
} from '../fakes/openai-server.js';

let fake: FakeOpenAIServer;
let sdk: OpenAI;
beforeEach(async () => {
  fake = await startFakeOpenAIServer();
  sdk = new OpenAI({ baseURL: fake.baseURL, apiKey: 'sk-fake', maxRetries: 0, timeout: 5_000 });
});
afterEach(async () => {
  await fake.close();
});

const messages = [{ role: 'user' as const, content: 'hi' }];

describe('fake OpenAI server', () => {
  it('streams text and tool call deltas that the SDK joins back together', async () => {
    fake.reply(
      toolCalls(
        [
          { name: 'read_logs', arguments: { service: 'api' }, id: 'call_1' },
          { name: 'list_services', arguments: {}, id: 'call_2' },
        ],
        { content: 'Let me look.', usage: { promptTokens: 7, completionTokens: 3 } },
      ),
    );
    const stream = sdk.chat.completions.stream({
      model: 'm',
      messages,
      stream_options: { include_usage: true },
    });
    const final = await stream.finalChatCompletion();
    const message = final.choices[0]!.message;
    expect(message.content).toBe('Let me look.');
    expect(message.tool_calls).toEqual([
      { id: 'call_1', type: 'function', function: { name: 'read_logs', arguments: '{"service":"api"}' } },
      { id: 'call_2', type: 'function', function: { name: 'list_services', arguments: '{}' } },
    ]);
    expect(final.choices[0]!.finish_reason).toBe('tool_calls');
    expect(final.usage).toMatchObject({ prompt_tokens: 7, completion_tokens: 3, total_tokens: 10 });
    expect(fake.lastRequest!.body.stream).toBe(true);
  });

  it('fails loudly, without inviting retries, when the script runs out', async () => {
    const retrying = new OpenAI({ baseURL: fake.baseURL, apiKey: 'sk-fake', maxRetries: 2 });
    await expect(retrying.chat.completions.create({ model: 'm', messages })).rejects.toThrow(
      /script ran out of answers at chat completion #1/,
    );
    expect(fake.requests).toHaveLength(1);
  });

  it('answers from the queue first, then from a responder that sees each request', async () => {
    fake.reply(text('queued'));
    fake.respond((request, index) => text(`dynamic ${index} for ${request.body.model}`));
    const first = await sdk.chat.completions.create({ model: 'm', messages });
    const second = await sdk.chat.completions.create({ model: 'other', messages });
    expect(first.choices[0]!.message.content).toBe('queued');
    expect(second.choices[0]!.message.content).toBe('dynamic 1 for other');
    expect(fake.pending()).toBe(0);
  });

  it('runs a dynamic script for many concurrent runs, without recording when asked', async () => {
    const quiet = await startFakeOpenAIServer({ record: false });
    const model = createOpenAIModelClient({
      baseURL: quiet.baseURL,
      model: 'm',
      timeoutMs: 5_000,
      maxRetries: 0,
    });
    // The benchmark's script: three tool steps, then a final answer.
    quiet.respond((request) => {
      const steps = (request.body.messages ?? []).filter((message) => message.role === 'tool').length;
      return steps < 3 ? toolCalls([{ name: 'step', arguments: { n: steps } }]) : text('done');
    });
    async function run(): Promise<string | null> {
      const transcript: ModelMessage[] = [{ role: 'user', content: 'go' }];
      for (;;) {
        const reply = await model.complete({ messages: transcript, tools: [] });
        if (reply.toolCalls.length === 0) return reply.content;
        transcript.push({ role: 'assistant', content: reply.content, toolCalls: reply.toolCalls });
        for (const call of reply.toolCalls) {
          transcript.push({ role: 'tool', toolCallId: call.id, name: call.name, content: 'ok' });
        }
      }
    }
    const answers = await Promise.all(Array.from({ length: 25 }, run));
    expect(new Set(answers)).toEqual(new Set(['done']));
    expect(quiet.requestCount).toBe(100);
    expect(quiet.requests).toHaveLength(0);
    await quiet.close();
  });

  it('closes even while a request hangs', async () => {
    fake.reply(hang());
    const pending = sdk.chat.completions.create({ model: 'm', messages }).catch((error: unknown) => error);
    await new Promise((resolve) => setTimeout(resolve, 30));
    await fake.close();
    expect(await pending).toBeInstanceOf(Error);
    fake = await startFakeOpenAIServer();
  });

  it('answers unknown routes with 404 and lists a model', async () => {
    const models = await sdk.models.list();
    expect(models.data.map((model) => model.id)).toEqual(['fake-model']);
    await expect(sdk.embeddings.create({ model: 'm', input: 'x' })).rejects.toThrow(/no route for POST/);
  });
});
