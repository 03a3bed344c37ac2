// tcp_check against a real listener and a closed port on 127.0.0.1.

import type { AddressInfo } from 'node:net';
import { createServer, type Server } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNetworkGuard } from '../../tools/network-guard.js';
import { createTcpCheckTool } from '../../tools/tcp-check.js';
import { ToolSettingsSchema } from '../../tools/tool-settings-schema.js';
import { callTool, dataOf } from './helpers/tool-context.js';

let listener: Server;
let openPort: number;
let closedPort: number;
let accepted = 0;
const tool = createTcpCheckTool({ guard: createNetworkGuard(ToolSettingsSchema.parse({}).network) });

beforeAll(async () => {
  listener = createServer((socket) => {
    accepted += 1;
    socket.destroy();
  });
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
  openPort = (listener.address() as AddressInfo).port;
  // A port that was just free: bind, note it, close it.
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  closedPort = (probe.address() as AddressInfo).port;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
});

afterAll(async () => {
  await new Promise<void>((resolve) => listener.close(() => resolve()));
});

describe('tcp_check', () => {
  it('connects to a listening port and reports the latency', async () => {
    const result = await callTool(tool, { host: '127.0.0.1', port: openPort });
    expect(result.ok).toBe(true);
    expect(dataOf(result)).toMatchObject({
      host: '127.0.0.1',
      port: openPort,
      connected: true,
      error_code: null,
    });
    expect(dataOf(result).latency_ms).toBeGreaterThanOrEqual(0);
    expect(result.summary).toMatch(new RegExp(`^Connected to 127\\.0\\.0\\.1:${openPort} in [\\d.]+ ms\\.$`));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(accepted).toBeGreaterThan(0);
  });

  it('resolves a host name and says which address it used', async () => {
    const result = await callTool(tool, { host: 'localhost', port: openPort });
    if (dataOf(result).address === '::1') return; // localhost may prefer IPv6, where nothing listens
    expect(result.ok).toBe(true);
    expect(dataOf(result).address).toBe('127.0.0.1');
  });

  it('reports a closed port as refused', async () => {
    const result = await callTool(tool, { host: '127.0.0.1', port: closedPort });
    expect(result.ok).toBe(false);
    expect(dataOf(result)).toMatchObject({ connected: false, error_code: 'ECONNREFUSED' });
    expect(result.summary).toBe(
      `Could not connect to 127.0.0.1:${closedPort}: connect ECONNREFUSED 127.0.0.1:${closedPort}.`,
    );
  });

  it('refuses the metadata address without connecting', async () => {
    const result = await callTool(tool, { host: '169.254.169.254', port: 80 });
    expect(result.ok).toBe(false);
    expect(dataOf(result).refused).toBe(true);
  });

  it('rejects hosts that look like options and ports out of range', () => {
    expect(() => tool.input.parse({ host: '-oProxyCommand=x', port: 22 })).toThrow();
    expect(() => tool.input.parse({ host: '127.0.0.1', port: 70000 })).toThrow();
  });
});
