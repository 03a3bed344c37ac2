// McpConnection against the real reference server, @modelcontextprotocol/server-everything, over stdio and over
// streamable HTTP; and an HTTP server the network guard denies, refused before a request is sent.
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:http';
import { resolve } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { McpConnection } from '../../tools/mcp/mcp-connection.js';
import type { McpServerEndpoint } from '../../tools/mcp/mcp-endpoint.js';
import { createNetworkGuard } from '../../tools/network-guard.js';
import { freePort } from '../redis-server.js';

const EVERYTHING = resolve('node_modules/@modelcontextprotocol/server-everything/dist/index.js');
const openGuard = createNetworkGuard({ allow: [], deny: [] });

const opened: McpConnection[] = [];
const children: ChildProcess[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((connection) => connection.close()));
  for (const child of children.splice(0)) {
    child.kill('SIGKILL');
    if (child.exitCode === null && child.signalCode === null) await once(child, 'exit');
  }
});

function endpoint(fields: Partial<McpServerEndpoint>): McpServerEndpoint {
  return { name: 'everything', env: [], headers: {}, timeoutMs: 20_000, ...fields };
}

function connection(fields: Partial<McpServerEndpoint>, guard = openGuard): McpConnection {
  const made = new McpConnection({ endpoint: endpoint(fields), guard });
  opened.push(made);
  return made;
}

async function listsAndEchoes(made: McpConnection): Promise<void> {
  await made.connect();
  expect(made.state()).toEqual({ kind: 'up' });
  const echo = made.tools().find((tool) => tool.name === 'echo');
  expect(echo?.inputSchema.type).toBe('object');
  expect(echo?.annotations?.readOnlyHint).toBe(true);
  const result = await made.call('echo', { message: 'hello over MCP' });
  expect(result.isError ?? false).toBe(false);
  expect(result.content).toEqual([{ type: 'text', text: 'Echo: hello over MCP' }]);
}

describe('McpConnection with server-everything', () => {
  it('lists its tools and calls echo over stdio', async () => {
    await listsAndEchoes(connection({ command: [process.execPath, EVERYTHING, 'stdio'] }));
  });

  it('lists its tools and calls echo over streamable HTTP', async () => {
    const port = await freePort();
    const child = spawn(process.execPath, [EVERYTHING, 'streamableHttp'], {
      env: { ...process.env, PORT: String(port) },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    children.push(child);
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    await vi.waitFor(() => expect(stderr).toContain('listening on port'), { timeout: 20_000, interval: 25 });
    await listsAndEchoes(connection({ url: `http://127.0.0.1:${port}/mcp` }));
  });

  it('refuses a host the network deny list names, before sending anything', async () => {
    let requests = 0;
    const server = createServer((_request, response) => {
      requests += 1;
      response.writeHead(500).end();
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const address = server.address();
    if (address === null || typeof address === 'string') throw new Error('no port');
    try {
      const denied = connection(
        { url: `http://127.0.0.1:${address.port}/mcp` },
        createNetworkGuard({ allow: [], deny: ['127.0.0.0/8'] }),
      );
      await denied.connect();
      const state = denied.state();
      expect(state.kind).toBe('down');
      expect(state.kind === 'down' && state.reason).toMatch(/127\.0\.0\.1 is in the network deny list/);
      await expect(denied.call('echo', { message: 'x' })).rejects.toThrow(
        /everything is down since .*deny list/,
      );
      expect(requests).toBe(0);
    } finally {
      server.close();
    }
  });
});
