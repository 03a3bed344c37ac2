// The model client's HTTP transport against real node servers on 127.0.0.1: what it sends, what it hands back,
// connection reuse, encodings, and every way a request can fail.
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
import { createHttpTransport } from '../../agent/model/http-transport.js';
import { createOpenAIModelClient } from '../../agent/model/model-client.js';
import { makeSelfSignedCertificate } from '../tools/helpers/certificate.js';

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

async function rejection(promise: Promise<unknown>): Promise<Error & { code?: string }> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(Error);
  return error as Error & { code?: string };
}

describe('http transport', () => {
  it('sends the method, headers and body, and hands back the status, headers and body', async () => {
    const { base, seen } = await serve((_request, response) => {
      response.setHeader('x-request-id', 'req_1');
      response.setHeader('set-cookie', ['a=1', 'b=2']);
      response.writeHead(201, { 'content-type': 'application/json' });
      response.end('{"ok":true}');
    });
    const fetch = createHttpTransport();
    const answer = await fetch(`${base}/v1/chat/completions`, {
      method: 'POST',
      headers: new Headers({ authorization: 'Bearer sk-test', 'content-type': 'application/json' }),
      body: '{"model":"m"}',
    });
    expect(answer.status).toBe(201);
    expect(answer.ok).toBe(true);
    expect(answer.headers.get('x-request-id')).toBe('req_1');
    expect(answer.headers.get('content-type')).toBe('application/json');
    expect(await answer.json()).toEqual({ ok: true });
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({
      method: 'POST',
      url: '/v1/chat/completions',
      body: '{"model":"m"}',
    });
    expect(seen[0]?.headers.authorization).toBe('Bearer sk-test');
  });

  it('takes headers as a plain object or as pairs, and a body of bytes', async () => {
    const { base, seen } = await serve((_request, response) => response.end('fine'));
    const fetch = createHttpTransport();
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
  });

  it('keeps the connection open, so the next request reuses it', async () => {
    const { base, seen } = await serve((_request, response) => response.end('{}'));
    const fetch = createHttpTransport();
    for (let index = 0; index < 3; index++) await (await fetch(`${base}/v1/models`)).text();
    expect(seen).toHaveLength(3);
    expect(new Set(seen.map((one) => one.remotePort)).size).toBe(1);
  });

  it('decodes a gzip answer and says nothing more of the encoding', async () => {
    const { base } = await serve((_request, response) => {
      const body = gzipSync(Buffer.from('{"choices":[]}'));
      response.writeHead(200, { 'content-encoding': 'gzip', 'content-length': body.length });
      response.end(body);
    });
    const answer = await createHttpTransport()(`${base}/x`);
    expect(answer.headers.get('content-encoding')).toBeNull();
    expect(await answer.json()).toEqual({ choices: [] });
  });

  it('hands the body as a stream too, for a reader that wants one, and joins a repeated header', async () => {
    const { base } = await serve((_request, response) => {
      response.setHeader('set-cookie', ['a=1', 'b=2']);
      response.end('streamed body');
    });
    const answer = await createHttpTransport()(`${base}/x`);
    expect(answer.headers.get('Set-Cookie')).toBe('a=1, b=2');
    expect(answer.body).not.toBeNull();
    // One stream, as fetch's Response has: a reader that cancels it cancels the one the others read.
    expect(answer.body).toBe(answer.body);
    expect(await new Response(answer.body).text()).toBe('streamed body');
    expect(await answer.clone().text()).toBe('streamed body');
  });

  it('hands back an answer without a body (204)', async () => {
    const { base } = await serve((_request, response) => {
      response.writeHead(204);
      response.end();
    });
    const answer = await createHttpTransport()(`${base}/x`, { method: 'DELETE' });
    expect(answer.status).toBe(204);
    expect(await answer.text()).toBe('');
  });

  it('does not follow a redirect: the model client names the address to set instead', async () => {
    const { base, seen } = await serve((_request, response) => {
      response.writeHead(301, { location: 'https://models.example.test/v1/chat/completions' });
      response.end();
    });
    const model = createOpenAIModelClient({
      baseURL: `${base}/v1`,
      model: 'm',
      timeoutMs: 5_000,
      maxRetries: 0,
    });
    const error = await rejection(model.complete({ messages: [{ role: 'user', content: 'hi' }], tools: [] }));
    expect(error).toBeInstanceOf(SystemError);
    expect((error as SystemError).code).toBe(ErrorCode.ModelFailed);
    expect(error.message).toContain('answered 301 Moved Permanently');
    expect(error.message).toContain('https://models.example.test/v1/chat/completions');
    expect(error.message).toContain('Set OPENAI_BASE_URL');
    expect(seen).toHaveLength(1);
  });

  it('fails at once with AbortError for a signal already aborted, sending nothing', async () => {
    const { base, seen } = await serve((_request, response) => response.end());
    const error = await rejection(createHttpTransport()(`${base}/x`, { signal: AbortSignal.abort() }));
    expect(error.name).toBe('AbortError');
    expect(seen).toHaveLength(0);
  });

  it('gives up with AbortError when aborted while the server has not answered, and closes the connection', async () => {
    let closed = false;
    const { base, seen } = await serve((request) => {
      request.socket.on('close', () => {
        closed = true;
      });
    });
    const controller = new AbortController();
    const pending = createHttpTransport()(`${base}/x`, {
      method: 'POST',
      body: '{}',
      signal: controller.signal,
    });
    await waitFor(() => seen.length === 1);
    controller.abort();
    const error = await rejection(pending);
    expect(error.name).toBe('AbortError');
    await waitFor(() => closed);
    expect(closed).toBe(true);
  });

  it('reports a refused connection with its code', async () => {
    const server = createServer();
    const base = `http://${await listen(server)}`;
    server.close();
    await once(server, 'close');
    const error = await rejection(createHttpTransport()(`${base}/x`));
    expect(error.code).toBe('ECONNREFUSED');
  });

  it('reports an answer cut short by the server as a reset connection', async () => {
    const { base } = await serve((_request, response) => {
      response.writeHead(200, { 'content-length': '1000' });
      response.write('{"partial":');
      setTimeout(() => response.socket?.destroy(), 10);
    });
    const error = await rejection(createHttpTransport()(`${base}/x`));
    expect(error.code).toBe('ECONNRESET');
    expect(error.message).toContain('closed before the whole answer arrived');
  });

  it('sends a body it cannot send as is (form data) through the built-in fetch', async () => {
    const { base, seen } = await serve((_request, response) => response.end('ok'));
    const form = new FormData();
    form.set('purpose', 'batch');
    const answer = await createHttpTransport()(`${base}/upload`, { method: 'POST', body: form });
    expect(await answer.text()).toBe('ok');
    expect(seen[0]?.headers['content-type']).toMatch(/^multipart\/form-data; boundary=/);
    expect(seen[0]?.body).toContain('name="purpose"');
  });

  it('speaks https, trusting the authorities it is given', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'opsbot-transport-'));
    try {
      const certificate = await makeSelfSignedCertificate(dir);
      const server = createTlsServer(certificate, (_request, response) => response.end('{"secure":true}'));
      const address = await listen(server);
      const trusted = await createHttpTransport({ ca: certificate.cert })(`https://${address}/x`);
      expect(await trusted.json()).toEqual({ secure: true });
      const untrusted = await rejection(createHttpTransport()(`https://${address}/x`));
      expect(untrusted.code).toBe('DEPTH_ZERO_SELF_SIGNED_CERT');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

/** Polls for something another socket does, up to 2 s. */
async function waitFor(condition: () => boolean): Promise<void> {
  for (let tries = 0; tries < 400 && !condition(); tries++)
    await new Promise((resolve) => setTimeout(resolve, 5));
}
