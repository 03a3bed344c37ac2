// Attacks on the network checks: reaching cloud metadata endpoints through any spelling, name or redirect.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSettings, parseSettings } from '../../bot/config/load-settings.js';
import { InvalidSettingsError } from '../../bot/config/settings-problem.js';
import { createBuiltInTools } from '../../tools/index.js';
import { createNetworkGuard, type Resolve } from '../../tools/network-guard.js';
import { ToolSettingsSchema } from '../../tools/tool-settings-schema.js';
import { callTool, dataOf } from '../tools/helpers/tool-context.js';

/** A resolver standing in for DNS: names an attacker controls, pointing at metadata addresses. */
const attackerDns: Resolve = async (host) => {
  const answers: Record<string, { address: string; family: 4 | 6 }[]> = {
    'ecs-creds.attacker.test': [{ address: '169.254.170.2', family: 4 }],
    'alibaba.attacker.test': [{ address: '100.100.100.200', family: 4 }],
    'mapped.attacker.test': [{ address: '::ffff:169.254.170.2', family: 6 }],
    'nat64.attacker.test': [{ address: '64:ff9b::a9fe:a9fe', family: 6 }],
    'linklocal6.attacker.test': [{ address: 'fe80::1', family: 6 }],
    'aws6.attacker.test': [{ address: 'fd00:ec2::254', family: 6 }],
    'mixed.attacker.test': [
      { address: '127.0.0.1', family: 4 },
      { address: '169.254.170.2', family: 4 },
    ],
    localhost: [{ address: '127.0.0.1', family: 4 }],
  };
  const found = answers[host];
  if (!found) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
  return found;
};

/** Every spelling of a metadata address that a URL parser or inet_aton turns into one. */
const metadataSpellings = [
  '169.254.170.2',
  '169.254.169.254',
  '100.100.100.200',
  '2852039166',
  '0251.0376.0251.0376',
  '0xa9fea9fe',
  '0xA9.0xFE.0xA9.0xFE',
  '169.254.43518',
  '0251.0xfe.169.254',
  '1684301000', // 100.100.100.200 as one decimal number
  '::ffff:169.254.170.2',
  '::ffff:a9fe:aa02',
  '[::ffff:a9fe:aa02]',
  '[fe80::1%25eth0]',
  'fe80::1%eth0',
  'fe80::1',
  'febf:ffff::1',
  'fd00:ec2::254',
  '64:ff9b::a9fe:aa02',
  '2002:a9fe:aa02::1',
  '169.254.170.2.',
];

const defaults = ToolSettingsSchema.parse({}).network;
const tools = createBuiltInTools(ToolSettingsSchema.parse({}), { resolve: attackerDns });
const httpCheck = tools.find((tool) => tool.name === 'http_check');
const tcpCheck = tools.find((tool) => tool.name === 'tcp_check');
if (!httpCheck || !tcpCheck) throw new Error('the built-in network tools are missing');

/** An allowed local server that redirects wherever ?to= says: the attacker's stepping stone. */
let redirector: Server;
let base: string;
beforeAll(async () => {
  redirector = createServer((request, response) => {
    const target = new URL(request.url ?? '/', 'http://127.0.0.1').searchParams.get('to');
    if (target) response.writeHead(302, { location: target }).end();
    else response.writeHead(200).end('allowed');
  });
  await new Promise<void>((resolve) => redirector.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(redirector.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => redirector.close(() => resolve())));

function expectRefused(result: { ok: boolean; summary: string; data?: unknown }): void {
  expect(result.ok).toBe(false);
  expect(dataOf(result).refused).toBe(true);
  expect(result.summary).toMatch(/cloud metadata address|not a valid/);
}

describe('network checks and cloud metadata endpoints', () => {
  it('attack: the shipped deny list leaves out link-local, Alibaba Cloud or IPv6 metadata ranges', async () => {
    expect(defaults.deny).toEqual(
      expect.arrayContaining(['169.254.0.0/16', '100.100.100.200/32', 'fe80::/10', 'fd00:ec2::254/128']),
    );
    const shipped = await loadSettings(fileURLToPath(new URL('../../opsbot.yaml', import.meta.url)));
    expect(shipped.settings.tools.network.deny).toEqual(
      expect.arrayContaining(['169.254.0.0/16', '100.100.100.200/32', 'fe80::/10', 'fd00:ec2::254/128']),
    );
  });

  it('attack: tcp_check to the ECS credentials endpoint 169.254.170.2 in any spelling is refused', async () => {
    for (const host of metadataSpellings) {
      const result = await callTool(tcpCheck, { host: host.replace('%25', '%'), port: 80 }).catch(
        (error: Error) => ({
          ok: false,
          summary: `input refused: ${error.message}`,
          data: { refused: true },
        }),
      );
      expect(result.ok, host).toBe(false);
      expect(dataOf(result).refused, host).toBe(true);
    }
  });

  it('attack: the guard lets a decimal, octal, hex or IPv6 spelling of a metadata address through', async () => {
    const guard = createNetworkGuard({ allow: [], deny: [] }, { resolve: attackerDns });
    for (const host of metadataSpellings) {
      await expect(guard.check(host), host).rejects.toThrow(/cloud metadata address/);
    }
  });

  it('attack: http_check to the ECS credentials endpoint 169.254.170.2 is refused, in URL spellings', async () => {
    const urls = [
      'http://169.254.170.2/v2/credentials',
      'http://2852039166/latest/meta-data/',
      'http://0251.0376.0251.0376/',
      'http://0xa9fea9fe/',
      'http://[::ffff:169.254.170.2]/v2/credentials',
      'http://[::ffff:a9fe:aa02]/',
      'http://[fe80::1%25eth0]/',
      'http://100.100.100.200/latest/meta-data/',
      'http://[fd00:ec2::254]/latest/meta-data/',
    ];
    for (const url of urls) {
      const result = await callTool(httpCheck, { url });
      expect(result.ok, url).toBe(false);
      expect(dataOf(result).refused, url).toBe(true);
    }
  });

  it('attack: a DNS name that resolves to a metadata address is refused by http_check and tcp_check', async () => {
    const names = [
      'ecs-creds.attacker.test',
      'alibaba.attacker.test',
      'mapped.attacker.test',
      'nat64.attacker.test',
      'linklocal6.attacker.test',
      'aws6.attacker.test',
      'mixed.attacker.test',
    ];
    for (const name of names) {
      expectRefused(await callTool(httpCheck, { url: `http://${name}/` }));
      expectRefused(await callTool(tcpCheck, { host: name, port: 80 }));
    }
  });

  it('attack: an allowed local server redirects http_check to 169.254.170.2; every hop is re-checked', async () => {
    expect((await callTool(httpCheck, { url: `${base}/` })).ok).toBe(true);
    const targets = [
      'http://169.254.170.2/v2/credentials/abc',
      'http://2852039166/latest/meta-data/',
      'http://[::ffff:a9fe:aa02]/',
      'http://ecs-creds.attacker.test/',
      'http://100.100.100.200/',
      // Two hops: an allowed hop first, then the metadata address.
      `${base}/?to=${encodeURIComponent('http://169.254.170.2/')}`,
    ];
    for (const target of targets) {
      const result = await callTool(httpCheck, { url: `${base}/?to=${encodeURIComponent(target)}` });
      expectRefused(result);
      expect((dataOf(result).redirects as unknown[]).length, target).toBeGreaterThan(0);
    }
  });

  it('attack: the deny list is replaced, yet the metadata ranges stay refused', async () => {
    const guard = createNetworkGuard({ allow: [], deny: ['10.0.0.0/8'] }, { resolve: attackerDns });
    for (const host of ['169.254.170.2', '100.100.100.200', 'fe80::1', 'fd00:ec2::254']) {
      await expect(guard.check(host), host).rejects.toThrow(/cloud metadata address/);
    }
    await expect(guard.check('127.0.0.1')).resolves.toBeDefined();
  });

  it('attack: an allow entry that overlaps a metadata range is a settings error naming the key and line', () => {
    for (const entry of [
      '169.254.169.254',
      '169.254.170.2/32',
      '169.254.0.0/16',
      '169.0.0.0/8',
      '0.0.0.0/0',
      '100.100.100.200',
      '100.64.0.0/10',
      'fe80::1',
      '::/0',
      'fd00::/8',
      '64:ff9b::/96',
      '2002::/16',
    ]) {
      expect(() => createNetworkGuard({ allow: [entry], deny: [] }), entry).toThrow(/metadata range/);
      const yaml = `tools:\n  network:\n    allow: ['10.0.0.0/8', '${entry}']\n`;
      let error: unknown;
      try {
        parseSettings(yaml, 'opsbot.yaml');
      } catch (caught) {
        error = caught;
      }
      expect(error, entry).toBeInstanceOf(InvalidSettingsError);
      expect(String((error as Error).message)).toMatch(/tools\.network\.allow\[1\] \(line 3\)/);
      expect(String((error as Error).message)).toContain('metadata range');
    }
    expect(() =>
      createNetworkGuard({ allow: ['10.0.0.0/8', '100.100.100.201', 'fd00:1::/32'], deny: [] }),
    ).not.toThrow();
  });
});
