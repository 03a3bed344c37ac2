// Attacks on a loopback deny list through the unspecified addresses 0.0.0.0 and ::, which Linux connects locally.

import type { AddressInfo } from 'node:net';
import { createServer, type Server } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ToolResult } from '../../agent/tool.js';
import { createBuiltInTools } from '../../tools/index.js';
import { createNetworkGuard, type Resolve } from '../../tools/network-guard.js';
import { ToolSettingsSchema } from '../../tools/tool-settings-schema.js';
import { callTool, dataOf } from '../tools/helpers/tool-context.js';

const zeroDns: Resolve = async (host) => {
  const answers: Record<string, { address: string; family: 4 | 6 }[]> = {
    'zero.attacker.test': [{ address: '0.0.0.0', family: 4 }],
    'zero6.attacker.test': [{ address: '::', family: 6 }],
    'zero-mapped.attacker.test': [{ address: '::ffff:0.0.0.0', family: 6 }],
    'this-network.attacker.test': [{ address: '0.1.2.3', family: 4 }],
    localhost: [{ address: '127.0.0.1', family: 4 }],
  };
  const found = answers[host];
  if (!found) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
  return found;
};

/** The attack pass's settings: loopback denied by address and by name. */
const loopbackDenied = ToolSettingsSchema.parse({
  network: { deny: [...ToolSettingsSchema.parse({}).network.deny, '127.0.0.0/8', '::1', 'localhost'] },
});
const tools = createBuiltInTools(loopbackDenied, { resolve: zeroDns });
const httpCheck = tools.find((tool) => tool.name === 'http_check');
const tcpCheck = tools.find((tool) => tool.name === 'tcp_check');
const tlsCertificate = tools.find((tool) => tool.name === 'tls_certificate');
if (!httpCheck || !tcpCheck || !tlsCertificate) throw new Error('the built-in network tools are missing');

/** A local service on loopback in both families, counting every connection it gets. */
let service4: Server;
let service6: Server;
let port: number;
let connections = 0;
beforeAll(async () => {
  const answer = (socket: import('node:net').Socket) => {
    connections += 1;
    socket.end('HTTP/1.1 200 OK\r\ncontent-length: 6\r\nconnection: close\r\n\r\nsecret');
  };
  service4 = createServer(answer);
  await new Promise<void>((resolve) => service4.listen(0, '127.0.0.1', resolve));
  port = (service4.address() as AddressInfo).port;
  service6 = createServer(answer);
  await new Promise<void>((resolve) => service6.listen(port, '::1', resolve));
});
afterAll(async () => {
  await new Promise<void>((resolve) => service4.close(() => resolve()));
  await new Promise<void>((resolve) => service6.close(() => resolve()));
});

function expectUnspecifiedRefusal(result: ToolResult, what: string): void {
  expect(result.ok, what).toBe(false);
  expect(dataOf(result).refused, `${what}: ${result.summary}`).toBe(true);
  expect(result.summary, what).toMatch(
    /is the unspecified address, which Linux connects to this host; it is never a destination|is in 0\.0\.0\.0\/8, the unspecified "this network" addresses/,
  );
}

describe('the unspecified addresses 0.0.0.0/8 and ::', () => {
  it('attack: with loopback denied, http_check reaches a local service through 0.0.0.0, 0, 0x0, [::] or [::ffff:0.0.0.0]', async () => {
    expect(dataOf(await callTool(httpCheck, { url: `http://127.0.0.1:${port}/` })).refused).toBe(true);
    expect(dataOf(await callTool(httpCheck, { url: `http://localhost:${port}/` })).refused).toBe(true);
    const before = connections;
    for (const host of [
      '0.0.0.0',
      '0',
      '0x0',
      '0.0',
      '[::]',
      '[::ffff:0.0.0.0]',
      '[::ffff:0:0]',
      '[64:ff9b::]',
    ]) {
      expectUnspecifiedRefusal(await callTool(httpCheck, { url: `http://${host}:${port}/` }), host);
    }
    expect(connections, 'the local service was never reached').toBe(before);
  });

  it('attack: tcp_check 0.0.0.0, and the other spellings, reach the local service', async () => {
    const before = connections;
    for (const host of [
      '0.0.0.0',
      '0',
      '0x0',
      '00',
      '::',
      '[::]',
      '::ffff:0.0.0.0',
      '0:0:0:0:0:0:0:0',
      '0.1.2.3',
    ]) {
      expectUnspecifiedRefusal(await callTool(tcpCheck, { host, port }), host);
      expectUnspecifiedRefusal(await callTool(tlsCertificate, { host, port }), host);
    }
    expect(connections, 'the local service was never reached').toBe(before);
  });

  it('attack: a name resolving to 0.0.0.0 or :: reaches the local service', async () => {
    const before = connections;
    for (const name of [
      'zero.attacker.test',
      'zero6.attacker.test',
      'zero-mapped.attacker.test',
      'this-network.attacker.test',
    ]) {
      const viaHttp = await callTool(httpCheck, { url: `http://${name}:${port}/` });
      expectUnspecifiedRefusal(viaHttp, name);
      expect(viaHttp.summary).toContain(`${name} (`);
      expectUnspecifiedRefusal(await callTool(tcpCheck, { host: name, port }), name);
    }
    expect(connections, 'the local service was never reached').toBe(before);
  });

  it('attack: with no deny list at all, 0.0.0.0 and :: are still refused, with their own reason', async () => {
    const guard = createNetworkGuard({ allow: [], deny: [] }, { resolve: zeroDns });
    expect(await guard.check('0.0.0.0').catch((error: Error) => error.message)).toBe(
      'refused: 0.0.0.0 is the unspecified address, which Linux connects to this host; it is never a destination',
    );
    expect(await guard.check('::').catch((error: Error) => error.message)).toBe(
      'refused: :: is the unspecified address, which Linux connects to this host; it is never a destination',
    );
    expect(await guard.check('0x0').catch((error: Error) => error.message)).toContain(
      '0x0 (0.0.0.0) is the unspecified address',
    );
    await expect(guard.check('127.0.0.1')).resolves.toBeDefined();
    await expect(guard.check('::1')).resolves.toBeDefined();
  });

  it('attack: an allow list naming 0.0.0.0 or :: would let them through; such an entry is a settings error', () => {
    for (const entry of ['0.0.0.0', '0.0.0.0/8', '0.0.0.0/16', '::', '::/127', '::ffff:0.0.0.0']) {
      expect(() => createNetworkGuard({ allow: [entry], deny: [] }), entry).toThrow(
        /overlaps the unspecified addresses .* never a destination/,
      );
    }
    expect(() => createNetworkGuard({ allow: ['::1', '127.0.0.0/8', '1.0.0.0/8'], deny: [] })).not.toThrow();
  });
});
