// Attack: DNS rebinding against a loopback bind. A page on evil.example whose name resolves to 127.0.0.1 sends
// Host: evil.example; every route of the one HTTP server must refuse it, not only the playground's.
import { mkdtempSync, rmSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Serving, serve } from '../../bot/serve.js';

let serving: Serving;
let dir: string;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'opsbot-loopback-host-'));
  serving = await serve({
    env: {
      PORT: '0',
      HOST: '127.0.0.1',
      OPSBOT_DATA_DIR: dir,
      OPSBOT_STORE_URL: `sqlite://${join(dir, 'opsbot.sqlite')}`,
      OPSBOT_METRICS: 'on',
      LOG_LEVEL: 'silent',
    },
    argv: [],
  });
}, 30_000);
afterAll(async () => {
  await serving?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** fetch cannot set Host, so this goes through node:http as a rebinding browser's request would arrive. */
function statusWithHost(path: string, host: string): Promise<number> {
  const url = new URL(serving.url);
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      { host: url.hostname, port: url.port, path, headers: { host } },
      (response) => {
        response.resume();
        resolve(response.statusCode ?? 0);
      },
    );
    request.on('error', reject).end();
  });
}

const ROUTES = ['/healthz', '/readyz', '/metrics', '/api/info', '/', '/nothing-here'];

describe('the Host check on a loopback bind', () => {
  it('attack: /readyz and /metrics answer a rebinding page (Host: evil.example) that the playground refuses', async () => {
    for (const path of ROUTES) {
      for (const host of ['evil.example', 'evil.example:80', '127.0.0.1.evil.example', '[::2]']) {
        expect(await statusWithHost(path, host), `${path} with Host: ${host}`).toBe(403);
      }
    }
  });

  it('still answers requests addressed to this machine by any loopback name', async () => {
    const port = new URL(serving.url).port;
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`, 'LOCALHOST']) {
      expect(await statusWithHost('/healthz', host), host).toBe(200);
      expect(await statusWithHost('/readyz', host), host).toBe(200);
      expect(await statusWithHost('/metrics', host), host).toBe(200);
    }
  });
});
