// A live model (OPENAI_BASE_URL, OPENAI_MODEL) behind a recording proxy on 127.0.0.1: opsbot talks to the
// proxy, which forwards each request as is and keeps the request and the reply, so the judge sees what the
// model was sent, and `--record` can store the replies as a cassette.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { type CassetteTurn, turnFromReply } from './cassette.js';
import type { ModelEndpoint, ModelSource, SentModelRequest } from './model-source.js';
import { fingerprintOf, type SentRequest } from './sent-fingerprint.js';

export interface LiveModelSource extends ModelSource {
  /** The replies so far, with what each request sent, ready to be saved as a cassette. */
  recording(): CassetteTurn[];
}

interface Exchange {
  request: SentModelRequest;
  /** Absent while waiting, and for good when opsbot gave up first (its model timeout). */
  status?: number;
  reply?: string;
}

const PASSED_HEADERS = ['content-type', 'retry-after', 'x-request-id'];

function parseRequest(raw: string): SentRequest {
  try {
    const value: unknown = JSON.parse(raw);
    return value !== null && typeof value === 'object' ? (value as SentRequest) : {};
  } catch {
    return {};
  }
}

async function bodyOf(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

export async function liveModel(
  target: ModelEndpoint,
  values: Record<string, string>,
): Promise<LiveModelSource> {
  const exchanges: Exchange[] = [];
  const upstream = target.baseURL.replace(/\/+$/, '');
  const forward = async (request: IncomingMessage, response: ServerResponse) => {
    const rawBody = await bodyOf(request);
    const path = (request.url ?? '/').replace(/^\/v1(?=\/|$)/, '');
    const aborted = new AbortController();
    response.on('close', () => aborted.abort());
    const exchange: Exchange = { request: { body: parseRequest(rawBody), rawBody } };
    if (request.method === 'POST' && path.startsWith('/chat/completions')) exchanges.push(exchange);
    let status = 502;
    let reply: string;
    let headers: Record<string, string> = { 'content-type': 'application/json' };
    try {
      const answer = await fetch(`${upstream}${path}`, {
        method: request.method ?? 'GET',
        headers: {
          'content-type': 'application/json',
          authorization: request.headers.authorization ?? `Bearer ${target.apiKey}`,
        },
        ...(request.method === 'GET' ? {} : { body: rawBody }),
        signal: aborted.signal,
      });
      status = answer.status;
      reply = await answer.text();
      headers = Object.fromEntries(
        PASSED_HEADERS.flatMap((name) => {
          const value = answer.headers.get(name);
          return value === null ? [] : [[name, value]];
        }),
      );
    } catch (error) {
      if (aborted.signal.aborted) return;
      const message = `the eval proxy could not reach ${upstream}: ${error instanceof Error ? error.message : error}`;
      reply = JSON.stringify({ error: { message, type: 'eval_proxy_error' } });
    }
    if (response.destroyed) return;
    exchange.status = status;
    exchange.reply = reply;
    response.writeHead(status, headers);
    response.end(reply);
  };
  const sockets = new Set<Socket>();
  const server = createServer((request, response) => {
    forward(request, response).catch(() => response.destroy());
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: { baseURL: `http://127.0.0.1:${port}/v1`, apiKey: target.apiKey, model: target.model },
    requests: () => exchanges.map((exchange) => exchange.request),
    problems: () => [],
    recording: () =>
      exchanges.map((exchange) => ({
        sent: fingerprintOf(exchange.request.body, values),
        reply:
          exchange.status === undefined || exchange.reply === undefined
            ? { no_reply: true as const }
            : turnFromReply(exchange.status, exchange.reply, values),
      })),
    async close() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const socket of sockets) socket.destroy();
      await closed;
    },
  };
}
