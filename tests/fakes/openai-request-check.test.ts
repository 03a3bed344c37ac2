// The fake OpenAI server refuses a malformed conversation as a real API does: a 400 with the API's error body,
// read through the real openai SDK; and the rules one by one.
import OpenAI from 'openai';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { FakeChatMessage, FakeRequestBody } from './openai-answers.js';
import { requestProblem } from './openai-request-check.js';
import { type FakeOpenAIServer, startFakeOpenAIServer, text } from './openai-server.js';

const call = (id: string, name = 'http_check') => ({
  id,
  type: 'function',
  function: { name, arguments: '{}' },
});
const tool = (name: string, parameters: unknown = { type: 'object', properties: {} }) => ({
  type: 'function',
  function: { name, description: 'd', parameters },
});
const system: FakeChatMessage = { role: 'system', content: 'You are opsbot.' };
const user: FakeChatMessage = { role: 'user', content: 'is the api up?' };
const asks = (...ids: string[]): FakeChatMessage => ({
  role: 'assistant',
  content: null,
  tool_calls: ids.map((id) => call(id)),
});
const answers = (id: string): FakeChatMessage => ({ role: 'tool', tool_call_id: id, content: '{"ok":true}' });
const problemOf = (messages: FakeChatMessage[], tools?: FakeRequestBody['tools']) =>
  requestProblem({ model: 'm', messages, ...(tools ? { tools } : {}) });

describe('requestProblem', () => {
  it('passes a well-formed conversation: parallel calls each answered, then an answer and a new question', () => {
    const messages = [system, user, asks('a', 'b'), answers('b'), answers('a'), user];
    expect(problemOf(messages, [tool('http_check'), tool('log_search')])).toBeUndefined();
  });

  it('refuses a tool call whose tool message is missing, or comes after another message', () => {
    expect(problemOf([system, user, asks('a', 'b'), answers('a')])).toEqual({
      message: expect.stringContaining('The following tool_call_ids did not have response messages: b'),
      param: 'messages.[2].tool_calls',
    });
    expect(problemOf([system, user, asks('a'), user, answers('a')])?.param).toBe('messages.[2].tool_calls');
    // A call left unanswered at the end is refused too: the API cannot answer a conversation with a hole in it.
    expect(problemOf([system, user, asks('a')])?.param).toBe('messages.[2].tool_calls');
  });

  it('refuses a tool message that answers no preceding call', () => {
    expect(problemOf([system, user, asks('a'), answers('a'), answers('z')])).toEqual({
      message: expect.stringContaining("messages.[4] answers 'z', which no preceding message asked for"),
      param: 'messages.[4].role',
    });
    expect(problemOf([system, user, answers('a')])?.param).toBe('messages.[2].role');
  });

  it('refuses roles out of order: a system message after the conversation began, or no user first', () => {
    expect(problemOf([system, user, system])?.message).toMatch(/must come before every other message/);
    expect(problemOf([system, asks('a'), answers('a')])?.message).toMatch(
      /first message after the system prompt must be a 'user' message; messages.\[1\] is 'assistant'/,
    );
    expect(problemOf([{ role: 'robot', content: 'x' }])?.param).toBe('messages.[0].role');
    expect(requestProblem({ model: 'm' })?.param).toBe('messages');
  });

  it('refuses an offered tool with a bad name or schema, naming the tool', () => {
    expect(problemOf([user], [tool('kube.pods list')])?.param).toBe('tools[0].function.name');
    expect(problemOf([user], [tool('a'), tool('a')])?.message).toBe("Duplicate function name 'a' in tools.");
    expect(problemOf([user], [tool('a', { type: 'string' })])?.message).toMatch(
      /^Invalid schema for function 'a': schema must be a JSON Schema of 'type: "object"'/,
    );
    expect(problemOf([user], [tool('a', { type: 'object' })])?.message).toMatch(/must have 'properties'/);
    expect(
      problemOf([user], [tool('a', { type: 'object', properties: { x: {} }, required: ['y'] })])?.message,
    ).toMatch(/'required' names 'y', which is not in 'properties'/);
  });
});

describe('the fake OpenAI server', () => {
  let fake: FakeOpenAIServer;
  beforeEach(async () => {
    fake = await startFakeOpenAIServer();
  });
  afterEach(async () => {
    await fake.close();
  });
  const client = () => new OpenAI({ baseURL: fake.baseURL, apiKey: 'sk-test', maxRetries: 0 });

  it('answers a malformed conversation with a 400 and the API error body, without using a scripted answer', async () => {
    fake.reply(text('never sent'));
    const sent = client().chat.completions.create({
      model: 'fake-model',
      messages: [
        { role: 'system', content: 'You are opsbot.' },
        { role: 'user', content: 'is the api up?' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'http_check', arguments: '{}' } }],
        },
        { role: 'user', content: 'well?' },
      ],
    });
    await expect(sent).rejects.toMatchObject({
      status: 400,
      error: { type: 'invalid_request_error', param: 'messages.[2].tool_calls' },
    });
    await expect(sent).rejects.toThrow(/did not have response messages: call_1/);
    expect(fake.pending()).toBe(1);
    expect(fake.rejected.map((entry) => entry.problem.param)).toEqual(['messages.[2].tool_calls']);
  });

  it('answers a well-formed one as scripted, and checks nothing when told not to', async () => {
    fake.reply(text('up'));
    const reply = await client().chat.completions.create({
      model: 'fake-model',
      messages: [{ role: 'user', content: 'is the api up?' }],
    });
    expect(reply.choices[0]?.message.content).toBe('up');
    const unchecked = await startFakeOpenAIServer({ checkRequests: false });
    try {
      unchecked.reply(text('answered anyway'));
      const loose = new OpenAI({ baseURL: unchecked.baseURL, apiKey: 'sk-test', maxRetries: 0 });
      const answer = await loose.chat.completions.create({
        model: 'fake-model',
        messages: [{ role: 'tool', tool_call_id: 'nobody', content: '{}' }],
      });
      expect(answer.choices[0]?.message.content).toBe('answered anyway');
    } finally {
      await unchecked.close();
    }
  });
});
