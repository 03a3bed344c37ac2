// Issue 12, finding 8: a client sending slowly must not hold a socket (and a handler) open; streams stay open.
import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { silentLogger } from '../../agent/logger.js';
import { readJson } from '../../bot/http/http-json.js';
import { DEFAULT_HTTP_TIMEOUTS, HttpServer, type HttpTimeouts } from '../../bot/http/http-server.js';

const REQUEST_MS = 1_000;
let server: HttpServer | undefined;
afterEach(async () => server?.close());

async function listening(timeouts: Partial<HttpTimeouts>): Promise<string> {
  server = new HttpServer({ host: '127.0.0.1', port: 0, logger: silentLogger, timeouts });
  server.mount('/api/echo', async (request, response) => {
    const body = await readJson(request, z.unknown());
    response.end(JSON.stringify(body));
  });
  server.mount('/api/stream', (_request, response) => {
    response.writeHead(200, { 'content-type': 'text/event-stream' });
    const tick = setInterval(() => response.write(': tick\n\n'), 200);
    response.on('close', () => clearInterval(tick));
  });
  return server.listen();
}

/** Sends the headers of a 100-byte JSON body, then one byte every `everyMs`; resolves with what came back. */
function trickle(url: string, everyMs: number): Promise<{ answer: string; closedAfterMs: number }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const began = performance.now();
    const socket = connect(Number(port), hostname, () => {
      socket.write(
        'POST /api/echo HTTP/1.1\r\nHost: 127.0.0.1\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{',
      );
    });
    const drip = setInterval(() => socket.write(' '), everyMs);
    let answer = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      answer += chunk;
    });
    socket.on('close', () => {
      clearInterval(drip);
      resolve({ answer, closedAfterMs: performance.now() - began });
    });
    socket.on('error', (error) => {
      clearInterval(drip);
      reject(error);
    });
  });
}

describe('HTTP server timeouts', () => {
  it('attack: a body trickled one byte every 2 s is answered 408 and closed within the request timeout', async () => {
    const url = await listening({ requestMs: REQUEST_MS, headersMs: REQUEST_MS });
    const slow = trickle(url, 2_000);
    // Others are served meanwhile.
    const served: number[] = [];
    for (let index = 0; index < 5; index++) {
      const response = await fetch(`${url}/api/echo`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ index }),
      });
      served.push(response.status);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const { answer, closedAfterMs } = await slow;
    console.info(
      `a trickled body was closed after ${Math.round(closedAfterMs)} ms (request timeout ${REQUEST_MS} ms)`,
    );
    expect(served).toEqual([200, 200, 200, 200, 200]);
    expect(answer).toMatch(/^HTTP\/1\.1 408 /);
    // The timeout plus Node's check interval (a quarter of it), with room for a loaded machine.
    expect(closedAfterMs).toBeLessThan(REQUEST_MS * 2);
  }, 10_000);

  it('keeps a streaming response (SSE) open past the request timeout: it bounds receiving the request only', async () => {
    const url = await listening({ requestMs: REQUEST_MS, headersMs: REQUEST_MS });
    const response = await fetch(`${url}/api/stream`);
    const reader = response.body!.getReader();
    const began = performance.now();
    let ticks = 0;
    while (performance.now() - began < REQUEST_MS * 2.5) {
      const { done } = await reader.read();
      expect(done).toBe(false);
      ticks++;
    }
    await reader.cancel();
    expect(ticks).toBeGreaterThan(5);
  }, 10_000);

  it('has bounded defaults: headers 10 s, request 30 s, keep-alive 5 s', () => {
    expect(DEFAULT_HTTP_TIMEOUTS).toEqual({ headersMs: 10_000, requestMs: 30_000, keepAliveMs: 5_000 });
  });
});
