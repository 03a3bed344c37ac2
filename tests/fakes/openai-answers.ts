// Answers the fake OpenAI server can give, and the request shapes it records: the script language for tests.
import type { IncomingHttpHeaders } from 'node:http';
import { STATUS_CODES } from 'node:http';

export interface FakeUsage {
  promptTokens?: number;
  completionTokens?: number;
}

export interface FakeChatMessage {
  role: string;
  content?: string | null;
  tool_calls?: Array<{ id: string; type: string; function: { name: string; arguments: string } }>;
  tool_call_id?: string;
  [key: string]: unknown;
}

/** The parsed JSON body; `{}` when the body was not a JSON object (see rawBody). */
export interface FakeRequestBody {
  model?: string;
  messages?: FakeChatMessage[];
  tools?: Array<{ type: string; function: { name: string; description?: string; parameters?: unknown } }>;
  stream?: boolean;
  [key: string]: unknown;
}

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: FakeRequestBody;
  rawBody: string;
}

interface Delay {
  /** Wait this long (real time) before answering. */
  delayMs?: number;
}

export type FakeAnswer =
  | ({
      kind: 'completion';
      content: string | null;
      toolCalls: Array<{ id: string; name: string; arguments: string }>;
      finishReason: string;
      usage: Required<FakeUsage>;
    } & Delay)
  | ({ kind: 'status'; status: number; body: unknown; headers: Record<string, string> } & Delay)
  | ({ kind: 'malformed'; status: number; body: string; contentType: string } & Delay)
  | { kind: 'hang' };

export type FakeResponder = (request: RecordedRequest, index: number) => FakeAnswer | Promise<FakeAnswer>;

const DEFAULT_USAGE: Required<FakeUsage> = { promptTokens: 10, completionTokens: 5 };
let nextToolCallId = 0;

/** A final text answer. */
export function text(
  content: string,
  options: { usage?: FakeUsage; finishReason?: string } & Delay = {},
): FakeAnswer {
  return {
    kind: 'completion',
    content,
    toolCalls: [],
    finishReason: options.finishReason ?? 'stop',
    usage: { ...DEFAULT_USAGE, ...options.usage },
    delayMs: options.delayMs,
  };
}

/** An assistant turn asking for one or more tool calls; arguments as an object or the raw string to send. */
export function toolCalls(
  calls: Array<{ name: string; arguments?: Record<string, unknown> | string; id?: string }>,
  options: { content?: string | null; usage?: FakeUsage; finishReason?: string } & Delay = {},
): FakeAnswer {
  return {
    kind: 'completion',
    content: options.content ?? null,
    toolCalls: calls.map((call) => ({
      id: call.id ?? `call_fake_${++nextToolCallId}`,
      name: call.name,
      arguments: typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments ?? {}),
    })),
    finishReason: options.finishReason ?? 'tool_calls',
    usage: { ...DEFAULT_USAGE, ...options.usage },
    delayMs: options.delayMs,
  };
}

/** An HTTP error with an OpenAI-shaped error body, e.g. status(429, { headers: { 'retry-after': '0' } }). */
export function status(
  code: number,
  options: { headers?: Record<string, string>; message?: string; body?: unknown } & Delay = {},
): FakeAnswer {
  const message = options.message ?? `Fake ${code} ${STATUS_CODES[code] ?? 'error'}`;
  return {
    kind: 'status',
    status: code,
    body: options.body ?? { error: { message, type: 'fake_error', param: null, code: null } },
    headers: options.headers ?? {},
    delayMs: options.delayMs,
  };
}

/** Never answers, to test timeouts; close() still finishes because it destroys the socket. */
export function hang(): FakeAnswer {
  return { kind: 'hang' };
}

/** A body sent verbatim, by default as application/json with status 200 (e.g. 'not json'). */
export function malformed(
  body: string,
  options: { contentType?: string; status?: number } & Delay = {},
): FakeAnswer {
  return {
    kind: 'malformed',
    body,
    contentType: options.contentType ?? 'application/json',
    status: options.status ?? 200,
    delayMs: options.delayMs,
  };
}
