// The model client over the real openai SDK against the fake server: mapping both ways, retries and failures.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ErrorCode, SystemError } from '../../agent/errors.js';
import {
  createOpenAIModelClient,
  type ModelToolSpec,
  modelConfigured,
  type OpenAIModelClientOptions,
} from '../../agent/model/model-client.js';
import type { ModelMessage } from '../../agent/model-message.js';
import {
  type FakeOpenAIServer,
  hang,
  malformed,
  startFakeOpenAIServer,
  status,
  text,
  toolCalls,
} from '../fakes/openai-server.js';

let fake: FakeOpenAIServer;
beforeEach(async () => {
  fake = await startFakeOpenAIServer();
});
afterEach(async () => {
  await fake.close();
});

function client(overrides: Partial<OpenAIModelClientOptions> = {}) {
  return createOpenAIModelClient({
    baseURL: fake.baseURL,
    model: 'test-model',
    timeoutMs: 5_000,
    maxRetries: 2,
    ...overrides,
  });
}

const tools: ModelToolSpec[] = [
  {
    name: 'read_logs',
    description: 'Reads the last lines of a service log.',
    parameters: {
      type: 'object',
      properties: { service: { type: 'string' }, lines: { type: 'integer' } },
      required: ['service'],
    },
  },
];
const ask: ModelMessage[] = [{ role: 'user', content: 'why is api slow?' }];

async function failure(promise: Promise<unknown>): Promise<SystemError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(SystemError);
  return error as SystemError;
}

describe('OpenAI model client: mapping', () => {
  it('maps several tool calls in one turn, in order, with ids and raw arguments', async () => {
    fake.reply(
      toolCalls([
        { name: 'read_logs', arguments: { service: 'api', lines: 20 }, id: 'call_a' },
        { name: 'read_logs', arguments: '{"service": "db",}', id: 'call_b' },
        { name: 'list_services' },
      ]),
    );
    const reply = await client().complete({ messages: ask, tools });
    expect(reply.content).toBeNull();
    expect(reply.finishReason).toBe('tool_calls');
    expect(reply.toolCalls).toHaveLength(3);
    expect(reply.toolCalls[0]).toEqual({
      id: 'call_a',
      name: 'read_logs',
      arguments: '{"service":"api","lines":20}',
    });
    expect(reply.toolCalls[1]).toEqual({ id: 'call_b', name: 'read_logs', arguments: '{"service": "db",}' });
    expect(reply.toolCalls[2]).toMatchObject({ name: 'list_services', arguments: '{}' });
    expect(reply.toolCalls[2]!.id).toMatch(/^call_fake_/);
  });

  it('maps a text reply and its usage', async () => {
    fake.reply(
      text('The api is slow because the db is at 100% CPU.', {
        usage: { promptTokens: 321, completionTokens: 12 },
      }),
    );
    const reply = await client().complete({ messages: ask, tools: [] });
    expect(reply).toEqual({
      content: 'The api is slow because the db is at 100% CPU.',
      toolCalls: [],
      finishReason: 'stop',
      usage: { promptTokens: 321, completionTokens: 12 },
    });
  });

  it('sends the transcript with tool calls and tool results in order, and tools as JSON Schema', async () => {
    fake.reply(text('done'));
    const messages: ModelMessage[] = [
      { role: 'system', content: 'You are opsbot.' },
      { role: 'user', content: 'check api and db' },
      {
        role: 'assistant',
        content: null,
        toolCalls: [
          { id: 'call_1', name: 'read_logs', arguments: '{"service":"api"}' },
          { id: 'call_2', name: 'read_logs', arguments: '{"service":"db"}' },
        ],
      },
      { role: 'tool', toolCallId: 'call_1', name: 'read_logs', content: 'api ok' },
      { role: 'tool', toolCallId: 'call_2', name: 'read_logs', content: 'db slow' },
      { role: 'assistant', content: 'db is slow', toolCalls: [] },
      { role: 'user', content: 'thanks' },
    ];
    await client({ temperature: 0 }).complete({ messages, tools });

    expect(fake.requests).toHaveLength(1);
    const request = fake.requests[0]!;
    expect(request.method).toBe('POST');
    expect(request.path).toBe('/v1/chat/completions');
    expect(request.headers.authorization).toBe('Bearer not-needed');
    expect(request.body.model).toBe('test-model');
    expect(request.body.temperature).toBe(0);
    expect(request.body.stream).toBeFalsy();
    expect(request.body.messages).toEqual([
      { role: 'system', content: 'You are opsbot.' },
      { role: 'user', content: 'check api and db' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'call_1', type: 'function', function: { name: 'read_logs', arguments: '{"service":"api"}' } },
          { id: 'call_2', type: 'function', function: { name: 'read_logs', arguments: '{"service":"db"}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'call_1', content: 'api ok' },
      { role: 'tool', tool_call_id: 'call_2', content: 'db slow' },
      { role: 'assistant', content: 'db is slow' },
      { role: 'user', content: 'thanks' },
    ]);
    expect(request.body.tools).toEqual([
      {
        type: 'function',
        function: { name: 'read_logs', description: tools[0]!.description, parameters: tools[0]!.parameters },
      },
    ]);
  });

  it('leaves tools and temperature out when there are none', async () => {
    fake.reply(text('hi'));
    await client({ apiKey: 'sk-test' }).complete({ messages: ask, tools: [] });
    expect(fake.lastRequest!.body).not.toHaveProperty('tools');
    expect(fake.lastRequest!.body).not.toHaveProperty('temperature');
    expect(fake.lastRequest!.headers.authorization).toBe('Bearer sk-test');
  });
});

describe('OpenAI model client: failures', () => {
  it('lets the SDK retry a 429 with retry-after 0 and returns the success', async () => {
    fake.reply(status(429, { headers: { 'retry-after': '0' } }), text('after the wait'));
    const reply = await client().complete({ messages: ask, tools: [] });
    expect(reply.content).toBe('after the wait');
    expect(fake.requests).toHaveLength(2);
  });

  it('reports a 503 that outlasts the retries as ModelUnavailable, naming the url and attempts', async () => {
    const unavailable = () => status(503, { headers: { 'retry-after': '0' }, message: 'overloaded' });
    fake.reply(unavailable(), unavailable(), unavailable());
    const error = await failure(client({ maxRetries: 2 }).complete({ messages: ask, tools: [] }));
    expect(error.code).toBe(ErrorCode.ModelUnavailable);
    expect(error.message).toBe(
      `The model "test-model" at ${fake.baseURL} is unavailable: 503 Service Unavailable after 3 attempts. The server said: "overloaded".`,
    );
    expect(fake.requests).toHaveLength(3);
  });

  it('reports a timeout clearly', async () => {
    fake.reply(hang());
    const error = await failure(
      client({ timeoutMs: 150, maxRetries: 0 }).complete({ messages: ask, tools: [] }),
    );
    expect(error.code).toBe(ErrorCode.ModelUnavailable);
    expect(error.message).toBe(
      `The model "test-model" at ${fake.baseURL} is unavailable: timed out after 150 ms.`,
    );
  });

  it('says how many attempts timed out', async () => {
    fake.reply(hang(), hang());
    const error = await failure(
      client({ timeoutMs: 100, maxRetries: 1 }).complete({ messages: ask, tools: [] }),
    );
    expect(error.message).toMatch(/is unavailable: timed out after 100 ms on each of 2 attempts\.$/);
    expect(fake.requests).toHaveLength(2);
  });

  it('reports a connection refusal clearly', async () => {
    const url = fake.baseURL;
    await fake.close();
    const error = await failure(
      client({ baseURL: url, maxRetries: 0 }).complete({ messages: ask, tools: [] }),
    );
    expect(error.code).toBe(ErrorCode.ModelUnavailable);
    expect(error.message).toMatch(/is unavailable: could not connect \(ECONNREFUSED\)\.$/);
    fake = await startFakeOpenAIServer();
  });

  it('reports a body that is not JSON as ModelFailed without crashing', async () => {
    fake.reply(malformed('not json'));
    const error = await failure(client().complete({ messages: ask, tools: [] }));
    expect(error.code).toBe(ErrorCode.ModelFailed);
    expect(error.message).toMatch(
      /^The model "test-model" at http:\/\/127\.0\.0\.1:\d+\/v1 sent a reply that is not valid JSON/,
    );
    expect(fake.requests).toHaveLength(1);
  });

  it('reports a non-JSON content type as ModelFailed', async () => {
    fake.reply(malformed('<html>Bad gateway</html>', { contentType: 'text/html' }));
    const error = await failure(client().complete({ messages: ask, tools: [] }));
    expect(error.code).toBe(ErrorCode.ModelFailed);
    expect(error.message).toMatch(/could not be used: the body is not JSON: "<html>Bad gateway<\/html>"\.$/);
  });

  it('reports JSON that is not a chat completion as ModelFailed', async () => {
    fake.reply(malformed('{"choices": []}'), malformed('{"object": "list"}'));
    const empty = await failure(client().complete({ messages: ask, tools: [] }));
    expect(empty.code).toBe(ErrorCode.ModelFailed);
    expect(empty.message).toMatch(/it is not a chat completion \(choices: expected at least one choice\)\.$/);
    const other = await failure(client().complete({ messages: ask, tools: [] }));
    expect(other.message).toMatch(/it is not a chat completion \(choices: /);
  });

  it('says plainly that the key was rejected on 401, without retrying', async () => {
    fake.reply(status(401, { message: 'Incorrect API key provided' }));
    const error = await failure(client({ apiKey: 'sk-wrong' }).complete({ messages: ask, tools: [] }));
    expect(error.code).toBe(ErrorCode.ModelFailed);
    expect(error.message).toBe(
      `The model "test-model" at ${fake.baseURL} rejected the credentials (401 Unauthorized). Check OPENAI_API_KEY, or the user and password in OPENAI_BASE_URL. The server said: "Incorrect API key provided".`,
    );
    expect(fake.requests).toHaveLength(1);
  });

  it('names the model on 404 and 400', async () => {
    fake.reply(
      status(404, { message: 'model "test-model" not found' }),
      status(400, { message: 'bad tools' }),
    );
    const notFound = await failure(client().complete({ messages: ask, tools: [] }));
    expect(notFound.message).toMatch(
      /^The model "test-model" at .* was not found \(404 Not Found\)\. Check the model name/,
    );
    const bad = await failure(client().complete({ messages: ask, tools: [] }));
    expect(bad.message).toMatch(
      /^The model "test-model" at .* rejected the request \(400 Bad Request\)\. The server said: "bad tools"\.$/,
    );
  });

  it('rethrows the abort reason when the caller aborts', async () => {
    fake.reply(hang());
    const controller = new AbortController();
    const pending = client().complete({ messages: ask, tools: [], signal: controller.signal });
    setTimeout(() => controller.abort(new Error('run cancelled')), 20);
    await expect(pending).rejects.toThrow('run cancelled');
  });
});

describe('modelConfigured', () => {
  it('is true when a key or a base url is set', () => {
    expect(modelConfigured({})).toBe(false);
    expect(modelConfigured({ OPENAI_API_KEY: ' ' })).toBe(false);
    expect(modelConfigured({ OPENAI_API_KEY: 'sk-x' })).toBe(true);
    expect(modelConfigured({ OPENAI_BASE_URL: 'http://127.0.0.1:11434/v1' })).toBe(true);
  });
});
