// The model client's fetch (undici under the openai SDK) against real node servers on 127.0.0.1: what it hands
// back, connection reuse, encodings, the size cap, the deadline over headers and body, and how calls fail.
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { ErrorCode, SystemError } from '../../agent/errors.js';
import { createOpenAIModelClient, type OpenAIModelClientOptions } from '../../agent/model/model-client.js';
import {
  createModelDispatcher,
  createModelFetch,
  MAX_MODEL_RESPONSE_BYTES,
  ModelResponseTooLargeError,
  ModelTimeoutError,
} from '../../agent/model/model-fetch.js';
import { makePrivateAuthority } from '../tools/helpers/certificate.js';

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
  remotePort: number;
}

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    server.close();
  }
});

async function listen(server: Server): Promise<string> {
  servers.push(server);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return `127.0.0.1:${port}`;
}

/** A server that records each request and answers it with `answer`. */
async function serve(
  answer: (request: IncomingMessage, response: ServerResponse, seen: Seen) => void,
): Promise<{ base: string; seen: Seen[] }> {
  const seen: Seen[] = [];
  const server = createServer(async (request, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const one: Seen = {
      method: request.method ?? '',
      url: request.url ?? '',
      headers: request.headers,
      body: Buffer.concat(chunks).toString('utf8'),
      remotePort: request.socket.remotePort ?? 0,
    };
    seen.push(one);
    answer(request, response, one);
  });
  return { base: `http://${await listen(server)}`, seen };
}

function modelFetch(options: { timeoutMs?: number; ca?: string } = {}): typeof fetch {
  const timeoutMs = options.timeoutMs ?? 5_000;
  return createModelFetch({
    // No proxy variables: these calls go straight to 127.0.0.1, whatever the machine running the tests has set.
    dispatcher: createModelDispatcher(
      {},
      { connectTimeoutMs: timeoutMs, ...(options.ca ? { ca: options.ca } : {}) },
    ),
    timeoutMs,
  });
}

async function rejection(promise: Promise<unknown>): Promise<Error & { code?: string }> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(Error);
  return error as Error & { code?: string };
}

/** An answer whose headers go out at once and whose body never comes (a server stuck mid-answer). */
function stallAfterHeaders(_request: IncomingMessage, response: ServerResponse): void {
  response.writeHead(200, { 'content-type': 'application/json', 'content-length': '1000' });
  response.write('{"id":"chatcmpl-stalled",');
}

describe('model fetch', () => {
  it('sends the method, headers and body, and hands back a Response of the whole answer', async () => {
    const { base, seen } = await serve((_request, response) => {
      response.setHeader('x-request-id', 'req_1');
      response.writeHead(201, { 'content-type': 'application/json' });
      response.end('{"ok":true}');
    });
    const answer = await modelFetch()(`${base}/v1/chat/completions`, {
      method: 'POST',
      headers: new Headers({ authorization: 'Bearer sk-test', 'content-type': 'application/json' }),
      body: '{"model":"m"}',
    });
    expect(answer).toBeInstanceOf(Response);
    expect(answer.status).toBe(201);
    expect(answer.headers.get('x-request-id')).toBe('req_1');
    expect(await answer.json()).toEqual({ ok: true });
    expect(seen[0]).toMatchObject({ method: 'POST', url: '/v1/chat/completions', body: '{"model":"m"}' });
    expect(seen[0]?.headers.authorization).toBe('Bearer sk-test');
  });

  it('takes headers as a plain object or as pairs and a body of bytes, and refuses a form it has no use for', async () => {
    const { base, seen } = await serve((_request, response) => response.end('fine'));
    const fetch = modelFetch();
    await fetch(`${base}/a`, {
      method: 'PUT',
      headers: { 'x-one': '1' },
      body: new TextEncoder().encode('bytes'),
    });
    await fetch(`${base}/b`, { headers: [['x-two', '2']] });
    expect(seen.map((one) => [one.method, one.headers['x-one'] ?? one.headers['x-two'], one.body])).toEqual([
      ['PUT', '1', 'bytes'],
      ['GET', '2', ''],
    ]);
    const error = await rejection(fetch(`${base}/c`, { method: 'POST', body: new FormData() }));
    expect(error.message).toBe('the model client sends text or bytes only, not a form or a stream');
    expect(seen).toHaveLength(2);
  });

  it('keeps the connection open, so the next request reuses it', async () => {
    const { base, seen } = await serve((_request, response) => response.end('{}'));
    const fetch = modelFetch();
    for (let index = 0; index < 3; index++) {
      await (await fetch(`${base}/v1/models`)).text();
      // As between two model turns, where a tool runs: undici frees the socket in the turn after the answer.
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(seen).toHaveLength(3);
    expect(new Set(seen.map((one) => one.remotePort)).size).toBe(1);
  });

  it('decodes a gzip answer and says nothing more of the encoding', async () => {
    const { base } = await serve((_request, response) => {
      const body = gzipSync(Buffer.from('{"choices":[]}'));
      response.writeHead(200, { 'content-encoding': 'gzip', 'content-length': body.length });
      response.end(body);
    });
    const answer = await modelFetch()(`${base}/x`);
    expect(answer.headers.get('content-encoding')).toBeNull();
    expect(await answer.json()).toEqual({ choices: [] });
  });

  it('hands back an answer without a body (204)', async () => {
    const { base } = await serve((_request, response) => {
      response.writeHead(204);
      response.end();
    });
    const answer = await modelFetch()(`${base}/x`, { method: 'DELETE' });
    expect(answer.status).toBe(204);
    expect(await answer.text()).toBe('');
  });

  it('hands a redirect back as it came, without following it', async () => {
    const { base, seen } = await serve((_request, response) => {
      response.writeHead(307, { location: `http://127.0.0.1:1/elsewhere` });
      response.end();
    });
    const answer = await modelFetch()(`${base}/x`, { method: 'POST', body: '{}' });
    expect(answer.status).toBe(307);
    expect(answer.headers.get('location')).toBe('http://127.0.0.1:1/elsewhere');
    expect(seen).toHaveLength(1);
  });

  it('fails at once with AbortError for a signal already aborted, sending nothing', async () => {
    const { base, seen } = await serve((_request, response) => response.end());
    const error = await rejection(modelFetch()(`${base}/x`, { signal: AbortSignal.abort() }));
    expect(error.name).toBe('AbortError');
    expect(seen).toHaveLength(0);
  });

  it('gives up with AbortError when aborted before the server answers, and closes the connection', async () => {
    let closed = false;
    const { base, seen } = await serve((request) => {
      request.socket.on('close', () => {
        closed = true;
      });
    });
    const controller = new AbortController();
    const pending = modelFetch()(`${base}/x`, { method: 'POST', body: '{}', signal: controller.signal });
    await waitFor(() => seen.length === 1);
    controller.abort();
    expect((await rejection(pending)).name).toBe('AbortError');
    await waitFor(() => closed);
    expect(closed).toBe(true);
  });

  it('gives up with AbortError when aborted while the body is still coming', async () => {
    const { base, seen } = await serve(stallAfterHeaders);
    const controller = new AbortController();
    const pending = modelFetch()(`${base}/x`, { signal: controller.signal });
    await waitFor(() => seen.length === 1);
    controller.abort();
    expect((await rejection(pending)).name).toBe('AbortError');
  });

  it('fails at its deadline when the headers came but the body stalls', async () => {
    const { base } = await serve(stallAfterHeaders);
    const started = performance.now();
    const error = await rejection(modelFetch({ timeoutMs: 300 })(`${base}/x`));
    expect(error).toBeInstanceOf(ModelTimeoutError);
    // The openai SDK reads "timed out" in the message as a timeout, not a connection failure.
    expect(error.message).toMatch(/timed out/);
    expect(performance.now() - started).toBeGreaterThanOrEqual(290);
  });

  it('reports a refused connection with its code', async () => {
    const server = createServer();
    const base = `http://${await listen(server)}`;
    server.close();
    await once(server, 'close');
    const error = await rejection(modelFetch()(`${base}/x`));
    expect((error.cause as { code?: string }).code).toBe('ECONNREFUSED');
  });

  it('refuses a body over the cap, declared or not, with an error that names the cap', async () => {
    const big = Buffer.alloc(MAX_MODEL_RESPONSE_BYTES + 1, 0x20);
    const { base } = await serve((request, response) => {
      // One answer says its length up front; the other streams it in chunks and only runs long.
      if (request.url === '/declared') response.writeHead(200, { 'content-length': big.length });
      else response.writeHead(200, { 'transfer-encoding': 'chunked' });
      response.end(big);
    });
    for (const path of ['/declared', '/chunked']) {
      const answer = await modelFetch()(`${base}${path}`);
      expect(answer.status).toBe(200);
      const error = await rejection(answer.text());
      expect(error).toBeInstanceOf(ModelResponseTooLargeError);
      expect(error.message).toContain('larger than 8 MiB');
    }
  });

  it('reads an answer of exactly the cap', async () => {
    const { base } = await serve((_request, response) =>
      response.end(Buffer.alloc(MAX_MODEL_RESPONSE_BYTES)),
    );
    const answer = await modelFetch()(`${base}/x`);
    expect((await answer.arrayBuffer()).byteLength).toBe(MAX_MODEL_RESPONSE_BYTES);
  });

  it('speaks https to a server whose certificate a private CA signed, trusting only the CA it is given', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'opsbot-model-fetch-'));
    try {
      const authority = await makePrivateAuthority(dir);
      const server = createTlsServer(authority.server, (_request, response) =>
        response.end('{"secure":true}'),
      );
      const address = await listen(server);
      const trusted = await modelFetch({ ca: authority.ca })(`https://${address}/x`);
      expect(await trusted.json()).toEqual({ secure: true });
      const untrusted = await rejection(modelFetch()(`https://${address}/x`));
      expect((untrusted.cause as { code?: string }).code).toBe('UNABLE_TO_VERIFY_LEAF_SIGNATURE');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('model fetch under the model client', () => {
  function client(base: string, overrides: Partial<OpenAIModelClientOptions> = {}) {
    return createOpenAIModelClient({
      baseURL: `${base}/v1`,
      model: 'm',
      timeoutMs: 5_000,
      maxRetries: 0,
      proxyEnv: {},
      ...overrides,
    });
  }
  const ask = { messages: [{ role: 'user' as const, content: 'hi' }], tools: [] };

  it('does not follow a redirect: it names the address to set instead', async () => {
    const { base, seen } = await serve((_request, response) => {
      response.writeHead(301, { location: 'https://models.example.test/v1/chat/completions' });
      response.end();
    });
    const error = await rejection(client(base).complete(ask));
    expect(error).toBeInstanceOf(SystemError);
    expect((error as SystemError).code).toBe(ErrorCode.ModelFailed);
    expect(error.message).toContain('answered 301 Moved Permanently');
    expect(error.message).toContain('https://models.example.test/v1/chat/completions');
    expect(error.message).toContain('Set OPENAI_BASE_URL');
    expect(seen).toHaveLength(1);
  });

  it('says an answer over the cap is too large, naming the cap, the model and the address, and does not retry it', async () => {
    const { base, seen } = await serve((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(Buffer.alloc(MAX_MODEL_RESPONSE_BYTES + 1, 0x20));
    });
    const model = client(base, { maxRetries: 2 });
    const error = await rejection(model.complete(ask));
    expect(error).toBeInstanceOf(SystemError);
    expect((error as SystemError).code).toBe(ErrorCode.ModelFailed);
    expect(error.message).toContain(`The model "m" at ${base}/v1 sent an answer larger than 8 MiB`);
    expect(error.message).toContain('MAX_MODEL_RESPONSE_BYTES');
    expect(seen).toHaveLength(1);
    // The server answered: not an outage, so the circuit stays closed.
    expect(model.breaker.state()).toBe('closed');
  });

  it('times out a body that stalls after the headers, on every attempt, with the timeout in the message', async () => {
    const { base, seen } = await serve(stallAfterHeaders);
    const retries: string[] = [];
    const error = await rejection(
      client(base, { timeoutMs: 300, maxRetries: 1 }).complete({
        ...ask,
        onRetry: (retry) => retries.push(retry.problem),
      }),
    );
    expect((error as SystemError).code).toBe(ErrorCode.ModelUnavailable);
    expect(error.message).toContain('is unavailable: timed out after 300 ms on each of 2 attempts');
    expect(seen).toHaveLength(2);
    expect(retries).toEqual(['no answer within 300 ms']);
  });

  it('rethrows the caller’s reason when it aborts during the body', async () => {
    const { base, seen } = await serve(stallAfterHeaders);
    const controller = new AbortController();
    const pending = client(base, { maxRetries: 2 }).complete({ ...ask, signal: controller.signal });
    await waitFor(() => seen.length === 1);
    const reason = new Error('cancelled by Alice');
    controller.abort(reason);
    expect(await rejection(pending)).toBe(reason);
    expect(seen).toHaveLength(1);
  });
});

/** Polls for something another socket does, up to 2 s. */
async function waitFor(condition: () => boolean): Promise<void> {
  for (let tries = 0; tries < 400 && !condition(); tries++)
    await new Promise((resolve) => setTimeout(resolve, 5));
}
