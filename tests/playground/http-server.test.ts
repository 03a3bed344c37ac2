// The one HTTP server: mounts by longest prefix (so Slack can take /slack/events beside the playground) and /readyz.
import { afterEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../agent/logger.js';
import { HttpServer } from '../../bot/http/http-server.js';

let server: HttpServer | undefined;
afterEach(async () => server?.close());

async function listening(): Promise<HttpServer> {
  server = new HttpServer({ host: '127.0.0.1', port: 0, logger: silentLogger, readinessTimeoutMs: 200 });
  return server;
}

describe('HttpServer', () => {
  it('sends each request to the longest mounted prefix', async () => {
    const http = await listening();
    http.mount('/', (_request, response) => {
      response.end('playground');
    });
    http.mount('/slack/events', (request, response) => {
      response.end(`slack ${request.method} ${request.url}`);
    });
    const url = await http.listen();
    const text = async (path: string, init?: RequestInit) => (await fetch(`${url}${path}`, init)).text();
    expect(await text('/slack/events', { method: 'POST', body: '{}' })).toBe('slack POST /slack/events');
    expect(await text('/slack/events/retry?x=1')).toBe('slack GET /slack/events/retry?x=1');
    expect(await text('/slack/eventsX')).toBe('playground');
    expect(await text('/')).toBe('playground');
    expect(() => http.mount('/slack/events/', () => {})).toThrow(/already mounted/);
  });

  it('answers 404 in JSON where nothing is mounted, and 500 when a handler throws', async () => {
    const http = await listening();
    http.mount('/boom', () => {
      throw new Error('kaput');
    });
    const url = await http.listen();
    const missing = await fetch(`${url}/nothing`);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({ error: 'Nothing is served at /nothing' });
    const failed = await fetch(`${url}/boom`);
    expect(failed.status).toBe(500);
    expect(((await failed.json()) as { error: string }).error).not.toContain('kaput');
  });

  it('reports not ready, with the reason, when a check fails or hangs', async () => {
    const http = await listening();
    http.addReadinessCheck('store', async () => ({ ok: true, detail: 'memory' }));
    http.addReadinessCheck('slack', async () => {
      throw new Error('socket mode is reconnecting');
    });
    http.addReadinessCheck('discord', () => new Promise(() => {}));
    const url = await http.listen();
    const ready = await fetch(`${url}/readyz`);
    expect(ready.status).toBe(503);
    expect(await ready.json()).toEqual({
      ready: false,
      checks: {
        store: { ok: true, detail: 'memory' },
        slack: { ok: false, detail: 'socket mode is reconnecting' },
        discord: { ok: false, detail: 'no answer within 200 ms' },
      },
    });
    expect(await (await fetch(`${url}/healthz`)).json()).toEqual({ ok: true });
  });

  it('closes even with a streaming response open', async () => {
    const http = await listening();
    http.mount('/stream', (_request, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write(': open\n\n');
    });
    const url = await http.listen();
    const response = await fetch(`${url}/stream`);
    const reader = response.body!.getReader();
    await reader.read();
    await http.close();
    await expect(reader.read()).rejects.toThrow();
  });
});
