// A fake Discord REST API under /api/v10 on 127.0.0.1: the real @discordjs/rest talks to it, and it records every call.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { answerRoute, type Body, type FakeInteraction } from './fake-discord-routes.js';
import { FakeDiscordState } from './fake-discord-state.js';

export interface DiscordApiCall {
  method: string;
  /** The decoded path after `/api/v10`, with its query string left off. */
  route: string;
  query: URLSearchParams;
  body: unknown;
  headers: IncomingMessage['headers'];
  /** The status the fake answered with. */
  status: number;
}

interface RateLimit {
  matches: (method: string, route: string) => boolean;
  retryAfterSeconds: number;
}

export class FakeDiscordApi extends FakeDiscordState {
  readonly calls: DiscordApiCall[] = [];
  readonly interactions = new Map<string, FakeInteraction>();
  /** Bulk-overwritten application commands, by guild id or `global`. */
  readonly commands = new Map<string, unknown[]>();
  /** Set by the gateway fake: what GET /gateway/bot points clients at. */
  gatewayUrl = 'ws://127.0.0.1:0';
  /** Set by the gateway fake: how a REST change (a new thread) reaches the client as a dispatch. */
  dispatch: (type: string, data: unknown) => void = () => {};
  private readonly rateLimits: RateLimit[] = [];
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

  /** For the client's `rest.api` and DISCORD_API_URL. */
  get apiUrl(): string {
    return `http://127.0.0.1:${this.port}/api`;
  }

  async listen(): Promise<this> {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(0, '127.0.0.1', () => resolve());
    });
    this.port = (this.server.address() as AddressInfo).port;
    return this;
  }

  /**
   * The next call (or the next call whose `METHOD /route` matches) gets 429 with this Retry-After, in seconds.
   * The body and headers are the ones @discordjs/rest reads to wait and retry.
   */
  rateLimitNext(route?: RegExp, retryAfterSeconds = 0.05): this {
    this.rateLimits.push({
      matches: (method, path) => route === undefined || route.test(`${method} ${path}`),
      retryAfterSeconds,
    });
    return this;
  }

  /** Ages an interaction past its 15 minutes: its callback answers 10062 and its webhook 50027. */
  expireInteraction(token: string): this {
    const interaction = this.interactions.get(token);
    if (!interaction) throw new Error(`the fake handed out no interaction with token ${token}`);
    interaction.expired = true;
    return this;
  }

  /** Lets the interaction be acknowledged, then ages it past its 15 minutes at once. */
  expireAfterAck(token: string): this {
    const interaction = this.interactions.get(token);
    if (!interaction) throw new Error(`the fake handed out no interaction with token ${token}`);
    interaction.expiresOnAck = true;
    return this;
  }

  callsTo(method: string, route: RegExp): DiscordApiCall[] {
    return this.calls.filter((call) => call.method === method && route.test(call.route));
  }

  async close(): Promise<void> {
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    for (const socket of this.sockets) socket.destroy();
    await closed;
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    const method = request.method ?? 'GET';
    const body = await parseBody(Buffer.concat(chunks), request.headers['content-type'] ?? '');
    const call: DiscordApiCall = {
      method,
      // @discordjs/rest encodes `@original` as `%40original`.
      route: decodeURIComponent(url.pathname.replace(/^\/api\/v10/, '')),
      query: url.searchParams,
      body,
      headers: request.headers,
      status: 0,
    };
    this.calls.push(call);
    if (!url.pathname.startsWith('/api/v10/'))
      return finish(call, response, 404, { message: 'Not Found', code: 0 });

    const limit = this.rateLimits.findIndex((candidate) => candidate.matches(method, call.route));
    if (limit >= 0) {
      const { retryAfterSeconds } = this.rateLimits.splice(limit, 1)[0]!;
      return finish(
        call,
        response,
        429,
        { message: 'You are being rate limited.', retry_after: retryAfterSeconds, global: false },
        {
          'retry-after': String(retryAfterSeconds),
          'x-ratelimit-limit': '5',
          'x-ratelimit-remaining': '0',
          'x-ratelimit-reset-after': String(retryAfterSeconds),
          'x-ratelimit-bucket': 'fake-bucket',
          'x-ratelimit-scope': 'user',
        },
      );
    }
    const answer = answerRoute(
      {
        state: this,
        interactions: this.interactions,
        gatewayUrl: this.gatewayUrl,
        commands: this.commands,
        dispatch: this.dispatch,
      },
      method,
      call.route,
      (body ?? {}) as Body,
    );
    finish(call, response, answer.status, answer.body);
  }
}

export async function startFakeDiscordApi(): Promise<FakeDiscordApi> {
  return new FakeDiscordApi().listen();
}

/**
 * JSON, or for a multipart upload its `payload_json` with each `files[n]` part read as text into the matching
 * `attachments` entry (`content`), so routes and tests see what was uploaded.
 */
async function parseBody(raw: Buffer, contentType: string): Promise<unknown> {
  if (raw.length === 0) return undefined;
  if (!contentType.startsWith('multipart/form-data')) return JSON.parse(raw.toString('utf8'));
  const form = await new Response(raw, { headers: { 'content-type': contentType } }).formData();
  const payloadJson = form.get('payload_json');
  const payload = (typeof payloadJson === 'string' ? JSON.parse(payloadJson) : {}) as Body;
  const described = Array.isArray(payload.attachments) ? (payload.attachments as Body[]) : [];
  const attachments: Body[] = [];
  for (const [name, part] of form.entries()) {
    const index = /^files\[(\d+)\]$/.exec(name)?.[1];
    if (index === undefined || typeof part === 'string') continue;
    const description = described.find((attachment) => String(attachment.id) === index) ?? {};
    attachments.push({ ...description, id: index, filename: part.name, content: await part.text() });
  }
  return { ...payload, attachments };
}

function finish(
  call: DiscordApiCall,
  response: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  call.status = status;
  // discord.js reads an answer as JSON only by its content type, and a 204 with one crashes it.
  if (body === undefined) {
    response.writeHead(status, headers).end();
    return;
  }
  response.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
}
