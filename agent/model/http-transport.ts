// The model client's HTTP: a fetch for the openai SDK over node:http and node:https with keep-alive agents.
// Node 20's built-in fetch (undici, WHATWG streams, an AbortSignal and transferable objects per request) cost
// more CPU than the rest of a model turn; this one sends a request, reads its whole answer and hands it on as a
// LeanResponse (lean-response.ts), and nothing else. A body it cannot send as is (a stream, form data) goes to the
// built-in fetch.
import {
  Agent as HttpAgent,
  request as httpRequest,
  type IncomingMessage,
  type OutgoingHttpHeaders,
} from 'node:http';
import type { Agent as HttpsAgent } from 'node:https';
import { LeanResponse } from './lean-response.js';

export interface HttpTransportOptions {
  /** Extra certificate authorities to trust for https (tests); NODE_EXTRA_CA_CERTS works as for any client. */
  ca?: string | Buffer;
}

/** Statuses whose response has no body, which the Response constructor refuses one for. */
const NULL_BODY_STATUSES = new Set([101, 103, 204, 205, 304]);

type Decode = (body: Buffer) => Promise<Buffer>;

let decoders: Promise<Record<string, Decode>> | undefined;

/** The decoder for an encoding a server used; zlib loads with the first encoded answer (most servers send none). */
async function decoderFor(encoding: string): Promise<Decode | undefined> {
  decoders ??= Promise.all([import('node:util'), import('node:zlib')]).then(([{ promisify }, zlib]) => ({
    gzip: promisify(zlib.gunzip),
    'x-gzip': promisify(zlib.gunzip),
    deflate: promisify(zlib.inflate),
    br: promisify(zlib.brotliDecompress),
  }));
  return (await decoders)[encoding];
}

export function createHttpTransport(options: HttpTransportOptions = {}): typeof fetch {
  // Keep-alive: a model call reuses the connection of the one before it. Idle sockets do not keep the process up.
  const http: Client = { request: httpRequest, agent: new HttpAgent({ keepAlive: true }) };
  // node:https (and with it tls) loads with the first https call: most starts never make one.
  let https: Promise<Client> | undefined;
  const httpsClient = () => {
    https ??= import('node:https').then((module) => ({
      request: module.request,
      agent: new module.Agent({ keepAlive: true, ...(options.ca ? { ca: options.ca } : {}) }) as HttpsAgent,
    }));
    return https;
  };

  return async (input, init) => {
    const body = init?.body ?? undefined;
    if (body !== undefined && body !== null && typeof body !== 'string' && !(body instanceof Uint8Array)) {
      return globalThis.fetch(input, init);
    }
    const url = new URL(input instanceof Request ? input.url : String(input));
    if (url.protocol === 'http:') return send(url, init ?? {}, body ?? undefined, http);
    if (url.protocol === 'https:') return send(url, init ?? {}, body ?? undefined, await httpsClient());
    return globalThis.fetch(input, init);
  };
}

interface Client {
  request: typeof httpRequest;
  agent: HttpAgent;
}

function send(
  url: URL,
  init: RequestInit,
  body: string | Uint8Array | undefined,
  client: Client,
): Promise<Response> {
  return new Promise((resolve, reject) => {
    const signal = init.signal ?? undefined;
    if (signal?.aborted) {
      reject(abortError(signal));
      return;
    }
    const request = client.request(url, {
      method: init.method ?? 'GET',
      headers: plainHeaders(init.headers),
      agent: client.agent,
    });
    let settled = false;
    const fail = (error: unknown) => {
      if (settled) return;
      settled = true;
      signal?.removeEventListener('abort', onAbort);
      request.destroy();
      reject(error);
    };
    const onAbort = () => fail(abortError(signal));
    signal?.addEventListener('abort', onAbort, { once: true });
    request.on('error', fail);
    request.on('response', (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('error', (error) => fail(cutShort(url, error)));
      response.on('close', () => {
        if (!response.complete) fail(cutShort(url));
      });
      response.on('end', () => {
        if (settled) return;
        toResponse(url, response, Buffer.concat(chunks)).then((answer) => {
          if (settled) return;
          settled = true;
          signal?.removeEventListener('abort', onAbort);
          resolve(answer);
        }, fail);
      });
    });
    request.end(body);
  });
}

async function toResponse(url: URL, response: IncomingMessage, raw: Buffer): Promise<Response> {
  const status = response.statusCode ?? 0;
  // Node gives lower-cased names, and joins most repeated headers itself; the rest (set-cookie) as fetch would.
  const headers = new Map<string, string>();
  for (const [name, value] of Object.entries(response.headers)) {
    if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : value);
  }
  const encoding = headers.get('content-encoding')?.trim().toLowerCase();
  const decode = encoding && encoding !== 'identity' ? await decoderFor(encoding) : undefined;
  let body: Buffer = raw;
  if (decode && raw.length > 0) {
    body = await decode(raw);
    // The body handed on is decoded, as fetch hands it on.
    headers.delete('content-encoding');
    headers.delete('content-length');
  }
  const answer = new LeanResponse(NULL_BODY_STATUSES.has(status) ? null : body, {
    status,
    statusText: response.statusMessage ?? '',
    headers,
    url: url.href,
  });
  // The SDK reads only what LeanResponse has of a Response (lean-response.ts).
  return answer as unknown as Response;
}

function plainHeaders(headers: RequestInit['headers']): OutgoingHttpHeaders {
  if (headers === undefined) return {};
  if (headers instanceof Headers) return Object.fromEntries(headers.entries());
  if (Array.isArray(headers)) return Object.fromEntries(headers);
  const plain: OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(headers))
    plain[name] = typeof value === 'string' ? value : [...(value as unknown as Iterable<string>)];
  return plain;
}

/** As fetch rejects: a DOMException named AbortError, which the SDK tells from a connection failure. */
function abortError(signal: AbortSignal | undefined): unknown {
  const reason = signal?.reason;
  return reason instanceof Error && reason.name === 'AbortError'
    ? reason
    : new DOMException('This operation was aborted', 'AbortError');
}

function cutShort(url: URL, cause?: unknown): Error {
  const message = `the connection to ${url.host} closed before the whole answer arrived`;
  return Object.assign(new Error(message, { cause }), { code: 'ECONNRESET' });
}
