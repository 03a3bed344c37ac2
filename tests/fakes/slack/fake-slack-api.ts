// A fake Slack Web API on 127.0.0.1: the real @slack/web-api and Bolt talk to it, and it records every call.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { type Args, METHODS } from './fake-slack-methods.js';
import { FakeSlackState } from './fake-slack-state.js';

export * from './fake-slack-state.js';

export interface SlackApiCall {
  method: string;
  args: Args;
  token: string | undefined;
  contentType: string;
}

/** Form fields that carry JSON, as the client serializes object arguments. */
const JSON_FIELDS = new Set(['blocks', 'attachments', 'files', 'metadata', 'view']);

export class FakeSlackApi extends FakeSlackState {
  readonly calls: SlackApiCall[] = [];
  /** Set by the Socket Mode fake: where apps.connections.open points clients. */
  socketUrl: string | undefined;
  private readonly rateLimits = new Map<string, number[]>();
  private readonly failures = new Map<string, string[]>();
  private readonly sockets = new Set<Socket>();
  private readonly server = createServer((request, response) => {
    this.handle(request, response).catch((error) => {
      response.writeHead(500, { 'content-type': 'text/plain' }).end(String(error));
    });
  });
  private port = 0;

  constructor() {
    super();
    this.server.on('connection', (socket) => {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
    });
  }

  get baseUrl(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** For `clientOptions.slackApiUrl` and SLACK_API_URL. */
  get apiUrl(): string {
    return `${this.baseUrl}/api/`;
  }

  /** A response_url for a command or click; what is posted to it lands in `responses`. */
  responseUrl(id: string): string {
    return `${this.baseUrl}/response/${id}`;
  }

  async listen(): Promise<this> {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(0, '127.0.0.1', () => resolve());
    });
    this.port = (this.server.address() as AddressInfo).port;
    return this;
  }

  /** The next call to `method` gets 429 with this Retry-After (seconds). */
  rateLimitOnce(method: string, retryAfterSeconds = 1): this {
    this.rateLimits.set(method, [...(this.rateLimits.get(method) ?? []), retryAfterSeconds]);
    return this;
  }

  /** The next call to `method` answers `{ok:false, error}`. */
  failOnce(method: string, error: string): this {
    this.failures.set(method, [...(this.failures.get(method) ?? []), error]);
    return this;
  }

  callsTo(method: string): SlackApiCall[] {
    return this.calls.filter((call) => call.method === method);
  }

  async close(): Promise<void> {
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    for (const socket of this.sockets) socket.destroy();
    await closed;
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks);
    const contentType = request.headers['content-type'] ?? '';
    const path = new URL(request.url ?? '/', this.baseUrl).pathname;
    if (request.method !== 'POST') return send(response, 405, { ok: false, error: 'method_not_allowed' });

    const upload = /^\/upload\/(\w+)$/.exec(path);
    if (upload) return this.receiveUpload(upload[1]!, raw, contentType, response);
    const responseUrl = /^\/response\/([\w-]+)$/.exec(path);
    if (responseUrl) {
      this.responses.push({ id: responseUrl[1]!, body: JSON.parse(raw.toString('utf8') || '{}') });
      return send(response, 200, { ok: true });
    }
    const method = /^\/api\/([\w.]+)$/.exec(path)?.[1];
    if (!method) return send(response, 404, { ok: false, error: 'unknown_path' });

    const args = await parseArgs(raw, contentType);
    const token = /^Bearer (.+)$/.exec(request.headers.authorization ?? '')?.[1] ?? stringArg(args.token);
    this.calls.push({ method, args, token, contentType });
    const retryAfter = this.rateLimits.get(method)?.shift();
    if (retryAfter !== undefined) {
      return send(response, 429, { ok: false, error: 'ratelimited' }, { 'retry-after': String(retryAfter) });
    }
    const failure = this.failures.get(method)?.shift();
    if (failure) return send(response, 200, { ok: false, error: failure });
    if (!token) return send(response, 200, { ok: false, error: 'not_authed' });
    const answer = METHODS[method];
    if (!answer) return send(response, 200, { ok: false, error: 'unknown_method' });
    send(
      response,
      200,
      answer(args, { state: this, baseUrl: this.baseUrl, token, socketUrl: this.socketUrl }),
    );
  }

  private async receiveUpload(id: string, raw: Buffer, contentType: string, response: ServerResponse) {
    const file = this.files.find((candidate) => candidate.id === id);
    if (!file) return send(response, 404, { ok: false, error: 'file_not_found' });
    if (contentType.startsWith('multipart/form-data')) {
      const form = await new Response(raw, { headers: { 'content-type': contentType } }).formData();
      const part = [...form.values()][0];
      file.content = typeof part === 'string' ? part : part ? await part.text() : '';
    } else {
      file.content = raw.toString('utf8');
    }
    response.writeHead(200, { 'content-type': 'text/plain' }).end(`OK - ${raw.length}`);
  }
}

export async function startFakeSlackApi(): Promise<FakeSlackApi> {
  return new FakeSlackApi().listen();
}

async function parseArgs(raw: Buffer, contentType: string): Promise<Args> {
  const text = raw.toString('utf8');
  if (contentType.startsWith('application/json')) return text ? (JSON.parse(text) as Args) : {};
  const args: Args = {};
  for (const [key, value] of new URLSearchParams(text)) {
    args[key] = JSON_FIELDS.has(key) ? safeJson(value) : value;
  }
  return args;
}

function safeJson(value: string): unknown {
  try {
    return JSON.parse(value);
  } catch {
    return value;
  }
}

function stringArg(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

function send(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  response.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers });
  response.end(JSON.stringify(body));
}
