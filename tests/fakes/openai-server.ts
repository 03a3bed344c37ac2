// A fake OpenAI-compatible server on 127.0.0.1 that the real openai SDK talks to, scripted answer by answer.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { renderPrompt } from '../../agent/prompts.js';
import {
  type FakeAnswer,
  type FakeRequestBody,
  type FakeResponder,
  type FakeUsage,
  type RecordedRequest,
  status,
  text,
} from './openai-answers.js';
import { type RequestProblem, requestProblem } from './openai-request-check.js';

export * from './openai-answers.js';
export type { RequestProblem } from './openai-request-check.js';

export interface FakeOpenAIServerOptions {
  /** Keep every request in `requests` (default true); turn off for long benchmarks. */
  record?: boolean;
  /** Serve https with this key and certificate (for proxies and private CAs). */
  tls?: { key: string; cert: string };
  /** The model ids `GET /models` lists; `fake-model` by default. */
  models?: string[];
  /** Answer only requests with `Authorization: Basic` of this user and password (a server behind basic auth). */
  basicAuth?: { user: string; password: string };
  /**
   * Refuse a malformed chat completion request with a 400, as a real API does (openai-request-check.ts); on by
   * default. Off only for a test about what a client does with a request that is not checked.
   */
  checkRequests?: boolean;
  /**
   * What the client sends, changed before anything reads it: a test's stand-in for a client that sends a broken
   * conversation (dropped tool messages), so the check above can be shown to catch it.
   */
  rewriteRequest?: (body: FakeRequestBody) => FakeRequestBody;
}

/**
 * The reviewer's request (agent/call-review/): its system prompt is the call-review prompt. The fake answers it
 * from its own queue, so a script written for a run's turns is not shifted by a review before an approval.
 */
const CALL_REVIEW_PROMPT = renderPrompt('callReview');

/** What an unscripted review gets: a verdict, so a test that did not think of the reviewer sees a normal card. */
export const DEFAULT_REVIEW_ANSWER: FakeAnswer = text(
  JSON.stringify({ verdict: 'supported', reasons: ['no review was scripted in this test'] }),
);

export function isCallReviewRequest(request: RecordedRequest): boolean {
  const first = request.body.messages?.[0];
  return first?.role === 'system' && first.content === CALL_REVIEW_PROMPT;
}

export class FakeOpenAIServer {
  /** Chat completion requests and model lists, without the reviewer's requests (see `reviewRequests`). */
  readonly requests: RecordedRequest[] = [];
  /** The reviewer's requests, in order. */
  readonly reviewRequests: RecordedRequest[] = [];
  private readonly reviewQueue: FakeAnswer[] = [];
  /** Every request received, recorded or not. */
  requestCount = 0;
  /** Chat completion requests refused as malformed, with why, in order (see openai-request-check.ts). */
  readonly rejected: Array<{ request: RecordedRequest; problem: RequestProblem }> = [];
  private readonly queue: FakeAnswer[] = [];
  private responder: FakeResponder | undefined;
  private readonly sockets = new Set<Socket>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly server;
  private completionCount = 0;
  private port = 0;

  constructor(private readonly options: FakeOpenAIServerOptions = {}) {
    const handler = (request: IncomingMessage, response: ServerResponse) => {
      // A client that hangs up mid-request is normal in timeout tests, not a reason to crash the test run.
      this.handle(request, response).catch(() => response.destroy());
    };
    this.server = options.tls ? createTlsServer(options.tls, handler) : createServer(handler);
    this.server.on('connection', (socket: Socket) => {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
    });
  }

  get baseURL(): string {
    return `${this.options.tls ? 'https' : 'http'}://127.0.0.1:${this.port}/v1`;
  }

  get lastRequest(): RecordedRequest | undefined {
    return this.requests.at(-1);
  }

  async listen(): Promise<this> {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(0, '127.0.0.1', () => resolve());
    });
    this.port = (this.server.address() as AddressInfo).port;
    return this;
  }

  /** Queues answers for the next chat completion requests, in order; they come before any responder. */
  reply(...answers: FakeAnswer[]): this {
    this.queue.push(...answers);
    return this;
  }

  /** Queues answers for the reviewer's next requests; without one a review gets DEFAULT_REVIEW_ANSWER. */
  review(...answers: FakeAnswer[]): this {
    this.reviewQueue.push(...answers);
    return this;
  }

  /** Answers every request once the queue is empty; pass undefined to remove it. */
  respond(responder: FakeResponder | undefined): this {
    this.responder = responder;
    return this;
  }

  /** Queued answers not yet used. */
  pending(): number {
    return this.queue.length;
  }

  async close(): Promise<void> {
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    for (const socket of this.sockets) socket.destroy();
    await closed;
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    let rawBody = Buffer.concat(chunks).toString('utf8');
    let body = parseBody(rawBody);
    if (this.options.rewriteRequest) {
      body = this.options.rewriteRequest(body);
      rawBody = JSON.stringify(body);
    }
    const recorded: RecordedRequest = {
      method: request.method ?? 'GET',
      path: request.url ?? '/',
      headers: request.headers,
      body,
      rawBody,
    };
    this.requestCount++;
    const review = isCallReviewRequest(recorded);
    if (review) this.reviewRequests.push(recorded);
    else if (this.options.record !== false) this.requests.push(recorded);
    if (this.options.basicAuth && !basicAuthMatches(request, this.options.basicAuth)) {
      response.setHeader('www-authenticate', 'Basic realm="fake openai"');
      return sendError(response, 401, 'Fake OpenAI server: this server wants basic auth.');
    }

    const path = recorded.path.split('?')[0] ?? '';
    if (recorded.method === 'GET' && path.endsWith('/models')) {
      return sendJson(response, 200, {
        object: 'list',
        data: (this.options.models ?? ['fake-model']).map((id) => ({ id, object: 'model' })),
      });
    }
    if (recorded.method !== 'POST' || !path.endsWith('/chat/completions')) {
      return sendError(response, 404, `Fake OpenAI server: no route for ${recorded.method} ${path}`);
    }
    const problem = this.options.checkRequests === false ? undefined : requestProblem(recorded.body);
    if (problem) {
      // Refused before any answer is taken, as a real API refuses it before the model sees it.
      this.rejected.push({ request: recorded, problem });
      return sendJson(response, 400, {
        error: { message: problem.message, type: 'invalid_request_error', param: problem.param, code: null },
      });
    }

    let answer: FakeAnswer;
    try {
      answer = review ? (this.reviewQueue.shift() ?? DEFAULT_REVIEW_ANSWER) : await this.nextAnswer(recorded);
    } catch (error) {
      return sendError(response, 500, `Fake OpenAI server: the responder threw: ${String(error)}`);
    }
    if (answer.kind === 'hang') return;
    if (answer.delayMs) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          this.timers.delete(timer);
          resolve();
        }, answer.delayMs);
        this.timers.add(timer);
      });
    }
    if (response.destroyed) return;
    this.send(response, answer, recorded.body);
  }

  private async nextAnswer(request: RecordedRequest): Promise<FakeAnswer> {
    const index = this.completionCount++;
    const queued = this.queue.shift();
    if (queued) return queued;
    if (this.responder) return this.responder(request, index);
    return status(500, {
      // Retrying cannot help: the test forgot to script this request, so fail loudly and at once.
      headers: { 'x-should-retry': 'false' },
      message:
        `Fake OpenAI server: the script ran out of answers at chat completion #${index + 1}. ` +
        'Queue more with fake.reply(...) or set fake.respond(...).',
    });
  }

  private send(
    response: ServerResponse,
    answer: Exclude<FakeAnswer, { kind: 'hang' }>,
    body: FakeRequestBody,
  ) {
    if (answer.kind === 'status') return sendJson(response, answer.status, answer.body, answer.headers);
    if (answer.kind === 'malformed') {
      response.writeHead(answer.status, { 'content-type': answer.contentType });
      return response.end(answer.body);
    }
    const completion = {
      id: `chatcmpl-fake-${this.completionCount}`,
      created: Math.floor(Date.now() / 1000),
      model: body.model ?? 'fake-model',
    };
    if (body.stream === true) return sendStream(response, completion, answer, body);
    const message: Record<string, unknown> = { role: 'assistant', content: answer.content };
    if (answer.toolCalls.length > 0) {
      message.tool_calls = answer.toolCalls.map((call) => ({
        id: call.id,
        type: 'function',
        function: { name: call.name, arguments: call.arguments },
      }));
    }
    sendJson(response, 200, {
      ...completion,
      object: 'chat.completion',
      choices: [{ index: 0, message, finish_reason: answer.finishReason, logprobs: null }],
      usage: usageBlock(answer.usage),
    });
  }
}

export async function startFakeOpenAIServer(options?: FakeOpenAIServerOptions): Promise<FakeOpenAIServer> {
  return new FakeOpenAIServer(options).listen();
}

type Completion = Extract<FakeAnswer, { kind: 'completion' }>;

function sendStream(
  response: ServerResponse,
  head: { id: string; created: number; model: string },
  answer: Completion,
  body: FakeRequestBody,
): void {
  response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const frame = (choices: unknown[], extra: Record<string, unknown> = {}) =>
    response.write(
      `data: ${JSON.stringify({ ...head, object: 'chat.completion.chunk', choices, ...extra })}\n\n`,
    );
  const delta = (value: Record<string, unknown>, finishReason: string | null = null) =>
    frame([{ index: 0, delta: value, finish_reason: finishReason }]);

  delta({ role: 'assistant', content: '' });
  for (const piece of halves(answer.content ?? '')) delta({ content: piece });
  answer.toolCalls.forEach((call, index) => {
    delta({
      tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.name, arguments: '' } }],
    });
    for (const piece of halves(call.arguments))
      delta({ tool_calls: [{ index, function: { arguments: piece } }] });
  });
  delta({}, answer.finishReason);
  const streamOptions = body.stream_options as { include_usage?: boolean } | undefined;
  if (streamOptions?.include_usage) frame([], { usage: usageBlock(answer.usage) });
  response.end('data: [DONE]\n\n');
}

/** Splits text in two so clients must join deltas; empty text gives no pieces. */
function halves(value: string): string[] {
  if (value === '') return [];
  const middle = Math.ceil(value.length / 2);
  return [value.slice(0, middle), value.slice(middle)].filter((piece) => piece !== '');
}

function usageBlock(usage: Required<FakeUsage>) {
  return {
    prompt_tokens: usage.promptTokens,
    completion_tokens: usage.completionTokens,
    total_tokens: usage.promptTokens + usage.completionTokens,
  };
}

function parseBody(raw: string): FakeRequestBody {
  try {
    const value: unknown = JSON.parse(raw);
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as FakeRequestBody)
      : {};
  } catch {
    return {};
  }
}

function sendJson(
  response: ServerResponse,
  code: number,
  body: unknown,
  headers: Record<string, string> = {},
) {
  const payload = JSON.stringify(body);
  response.writeHead(code, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(payload),
    ...headers,
  });
  response.end(payload);
}

function sendError(response: ServerResponse, code: number, message: string): void {
  sendJson(
    response,
    code,
    { error: { message, type: 'fake_error', param: null, code: null } },
    { 'x-should-retry': 'false' },
  );
}

function basicAuthMatches(request: IncomingMessage, expected: { user: string; password: string }): boolean {
  const given = /^Basic\s+(\S+)$/i.exec(request.headers.authorization ?? '')?.[1];
  return given === Buffer.from(`${expected.user}:${expected.password}`, 'utf8').toString('base64');
}
