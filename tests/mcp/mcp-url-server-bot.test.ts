// A `url:` MCP server through the whole bot. Allowed by tools.network: the reference server (server-everything
// over streamable HTTP on 127.0.0.1) answers a typed command in the playground's chat, and /readyz counts it up.
// Refused by the network guard (an address outside the allow list, a cloud metadata address): `npm start` still
// starts, warns naming each server and the guard's refusal, /readyz's `mcp` check shows them down with that
// reason, and the server, by its own count, was never connected to.
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { type HttpMcpServer, startHttpMcpServer } from '../fakes/mcp/http-mcp-server.js';
import { startTestPlayground, type TestPlayground } from '../playground/helpers/test-playground.js';
import { freePort } from '../redis-server.js';
import { startServerProcess } from '../serve/server-process.js';

const EVERYTHING = resolve('node_modules/@modelcontextprotocol/server-everything/dist/index.js');
const MAIN = fileURLToPath(new URL('../../bot/main.ts', import.meta.url));
const TSX = createRequire(import.meta.url).resolve('tsx');

interface Readiness {
  ready: boolean;
  checks: Record<string, { ok: boolean; detail?: string; advisory?: boolean }>;
}

const readiness = async (url: string) => (await (await fetch(`${url}/readyz`)).json()) as Readiness;

let playground: TestPlayground | undefined;
let everything: ChildProcess | undefined;
let server: HttpMcpServer | undefined;
let dir: string | undefined;
afterEach(async () => {
  await playground?.stop();
  if (everything && everything.exitCode === null && everything.signalCode === null) {
    everything.kill('SIGKILL');
    await once(everything, 'exit');
  }
  await server?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
  playground = everything = server = dir = undefined;
});

/** server-everything over streamable HTTP on a free port of 127.0.0.1, once it says it listens. */
async function startEverything(): Promise<string> {
  const port = await freePort();
  everything = spawn(process.execPath, [EVERYTHING, 'streamableHttp'], {
    env: { ...process.env, PORT: String(port) },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  everything.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  await vi.waitFor(() => expect(stderr).toContain('listening on port'), { timeout: 20_000, interval: 25 });
  return `http://127.0.0.1:${port}/mcp`;
}

describe('a url MCP server the network allows, through the whole bot', () => {
  it('answers a typed <server>__<tool> command in the chat, and /readyz counts it up', async () => {
    const url = await startEverything();
    playground = await startTestPlayground({
      moreTools: '  network: { allow: [127.0.0.1] }',
      moreSettings: ['mcp:', '  servers:', '    everything:', `      url: ${url}`, ''].join('\n'),
    });
    expect((await readiness(playground.url)).checks.mcp).toMatchObject({ ok: true, detail: '1 up' });

    const posted = await fetch(`${playground.url}/api/channels/ops/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        user: 'alice',
        clientId: 'client-mcp-url',
        text: '@opsbot everything__echo message=hello-over-streamable-http',
      }),
    });
    expect(posted.status).toBe(202);
    const answer = await vi.waitFor(
      async () => {
        const page = (await (await fetch(`${playground!.url}/api/channels/ops/messages`)).json()) as {
          messages: { author: { kind: string }; text?: string }[];
        };
        const found = JSON.stringify(page.messages.filter((message) => message.author.kind !== 'user'));
        expect(found).toContain('Echo: hello-over-streamable-http');
        return found;
      },
      { timeout: 20_000, interval: 50 },
    );
    expect(answer).toContain('everything__echo');
  });
});

describe('a url MCP server the network guard refuses, through `npm start`', () => {
  it('starts, warns naming each server and the refusal, shows them down in /readyz, and never connects', async () => {
    server = await startHttpMcpServer();
    dir = mkdtempSync(join(tmpdir(), 'opsbot-mcp-refused-'));
    writeFileSync(
      join(dir, 'opsbot.yaml'),
      [
        'tools:',
        // 127.0.0.1, where the server listens, is not in the allow list.
        '  network: { allow: [10.0.0.0/8] }',
        'mcp:',
        '  servers:',
        '    outside:',
        `      url: ${server.url}`,
        '    metadata:',
        '      url: http://169.254.169.254/mcp',
        '',
      ].join('\n'),
    );
    const { child, done, output } = startServerProcess(['--import', TSX, MAIN], dir, {
      OPSBOT_CONFIG: join(dir, 'opsbot.yaml'),
    });
    try {
      const log = await output.until(/opsbot is running/, 30_000);
      expect(log).toMatch(
        /MCP server outside could not be reached \([^)]*127\.0\.0\.1[^)]*not in the network allow list[^)]*\)/,
      );
      expect(log).toMatch(/MCP server metadata could not be reached \([^)]*169\.254\.169\.254[^)]*metadata/);
      const url = /Open (http:\/\/127\.0\.0\.1:\d+)\//.exec(log)?.[1];
      expect(url).toBeDefined();
      const ready = await readiness(url!);
      // Advisory: the bot is ready without the servers' tools.
      expect(ready.ready).toBe(true);
      expect(ready.checks.mcp?.ok).toBe(false);
      expect(ready.checks.mcp?.detail).toMatch(/outside down since [^;]*not in the network allow list/);
      expect(ready.checks.mcp?.detail).toMatch(/metadata down since [^;]*metadata/);
      expect(server.connections()).toBe(0);
    } finally {
      child.kill('SIGTERM');
    }
    expect((await done).code).toBe(0);
    expect(server.connections()).toBe(0);
  }, 60_000);
});
