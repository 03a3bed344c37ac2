// Attacks on the network checks through cloud endpoints outside the first fixed ranges, and metadata headers.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ToolResult } from '../../agent/tool.js';
import { loadSettings } from '../../bot/config/load-settings.js';
import { createBuiltInTools } from '../../tools/index.js';
import { createNetworkGuard, type Resolve } from '../../tools/network-guard.js';
import { ToolSettingsSchema } from '../../tools/tool-settings-schema.js';
import { callTool, dataOf } from '../tools/helpers/tool-context.js';

/** Each endpoint the attack pass reached, as a URL host and as a tcp_check host. */
const endpoints = [
  ['EKS Pod Identity', '169.254.170.23', '169.254.170.23'],
  ['EKS Pod Identity over IPv6', '[fd00:ec2::23]', 'fd00:ec2::23'],
  ['GCP over IPv6', '[fd20:ce::254]', 'fd20:ce::254'],
  ['OCI over IPv6', '[fd00:c1::a9fe:a9fe]', 'fd00:c1::a9fe:a9fe'],
  ['OCI', '192.0.0.192', '192.0.0.192'],
  ['Azure WireServer', '168.63.129.16', '168.63.129.16'],
  ['NAT64 of 169.254.169.254', '[64:ff9b::a9fe:a9fe]', '64:ff9b::169.254.169.254'],
  ['local NAT64 of 169.254.169.254', '[64:ff9b:1::a9fe:a9fe]', '64:ff9b:1::a9fe:a9fe'],
  ['IPv4-translated 169.254.169.254', '[::ffff:0:a9fe:a9fe]', '::ffff:0:169.254.169.254'],
  ['IPv4-compatible 169.254.169.254', '[::a9fe:a9fe]', '::169.254.169.254'],
  ['6to4 of Azure WireServer', '[2002:a83f:8110::1]', '2002:a83f:8110::1'],
  ['NAT64 of OCI', '[64:ff9b::c000:c0]', '64:ff9b::192.0.0.192'],
] as const;

/** Names an attacker controls, each pointing at one of the endpoints; GCP's own name in both families. */
const attackerDns: Resolve = async (host) => {
  const answers: Record<string, { address: string; family: 4 | 6 }[]> = {
    'metadata.google.internal': [
      { address: '169.254.169.254', family: 4 },
      { address: 'fd20:ce::254', family: 6 },
    ],
    'gcp6.attacker.test': [{ address: 'fd20:ce::254', family: 6 }],
    'eks.attacker.test': [{ address: '169.254.170.23', family: 4 }],
    'eks6.attacker.test': [{ address: 'fd00:ec2::23', family: 6 }],
    'oci6.attacker.test': [{ address: 'fd00:c1::a9fe:a9fe', family: 6 }],
    'oci.attacker.test': [{ address: '192.0.0.192', family: 4 }],
    'wireserver.attacker.test': [{ address: '168.63.129.16', family: 4 }],
    'nat64.attacker.test': [{ address: '64:ff9b:1::a9fe:a9fe', family: 6 }],
    'translated.attacker.test': [{ address: '::ffff:0:a9fe:a9fe', family: 6 }],
  };
  const found = answers[host];
  if (!found) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
  return found;
};

const tools = createBuiltInTools(ToolSettingsSchema.parse({}), { resolve: attackerDns });
const httpCheck = tools.find((tool) => tool.name === 'http_check');
const tcpCheck = tools.find((tool) => tool.name === 'tcp_check');
const tlsCertificate = tools.find((tool) => tool.name === 'tls_certificate');
if (!httpCheck || !tcpCheck || !tlsCertificate) throw new Error('the built-in network tools are missing');

function expectMetadataRefusal(result: ToolResult, what: string): void {
  expect(result.ok, what).toBe(false);
  expect(dataOf(result).refused, `${what}: ${result.summary}`).toBe(true);
  expect(result.summary, what).toMatch(/is a cloud metadata address \(.+\), which is always refused/);
}

/** An allowed local server that counts requests and redirects wherever ?to= says. */
let server: Server;
let base: string;
const seen: Record<string, string | string[] | undefined>[] = [];
beforeAll(async () => {
  server = createServer((request, response) => {
    seen.push(request.headers);
    const target = new URL(request.url ?? '/', 'http://127.0.0.1').searchParams.get('to');
    if (target) response.writeHead(302, { location: target }).end();
    else response.writeHead(200).end('{"RoleArn":"arn:aws:iam::123456789012:role/node"}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe('cloud metadata endpoints outside the first fixed ranges', () => {
  it('attack: http_check, tcp_check and tls_certificate reach EKS, GCP v6, OCI, WireServer and wrapped forms', async () => {
    const results: [string, ToolResult][] = [];
    for (const [what, urlHost, host] of endpoints) {
      const call = `${host} (${what})`;
      results.push([
        `http_check ${call}`,
        await callTool(httpCheck, { url: `http://${urlHost}/`, timeout_ms: 500 }),
      ]);
      results.push([`tcp_check ${call}`, await callTool(tcpCheck, { host, port: 80, timeout_ms: 500 })]);
      results.push([`tls_certificate ${call}`, await callTool(tlsCertificate, { host, timeout_ms: 500 })]);
    }
    const reached = results.filter(([, result]) => dataOf(result).refused !== true).map(([call]) => call);
    expect(reached, 'not refused').toEqual([]);
    for (const [call, result] of results) expectMetadataRefusal(result, call);
  });

  it('attack: a name resolving to one of them is refused, and the refusal says which endpoint it is', async () => {
    const names = {
      'metadata.google.internal': 'instance metadata of AWS, GCP, Azure, OCI',
      'gcp6.attacker.test': 'GCP metadata over IPv6',
      'eks.attacker.test': 'EKS Pod Identity',
      'eks6.attacker.test': 'EKS Pod Identity over IPv6',
      'oci6.attacker.test': 'OCI metadata over IPv6',
      'oci.attacker.test': 'OCI metadata',
      'wireserver.attacker.test': 'Azure WireServer',
      'nat64.attacker.test': 'local NAT64 for 169.254.169.254',
      'translated.attacker.test': 'IPv4-translated for 169.254.169.254',
    };
    const results: [string, string, ToolResult, ToolResult][] = [];
    for (const [name, named] of Object.entries(names)) {
      const viaHttp = await callTool(httpCheck, { url: `http://${name}/`, timeout_ms: 500 });
      const viaTcp = await callTool(tcpCheck, { host: name, port: 80, timeout_ms: 500 });
      results.push([name, named, viaHttp, viaTcp]);
    }
    const reached = results.flatMap(([name, , viaHttp, viaTcp]) => [
      ...(dataOf(viaHttp).refused === true ? [] : [`http_check ${name}`]),
      ...(dataOf(viaTcp).refused === true ? [] : [`tcp_check ${name}`]),
    ]);
    expect(reached, 'not refused').toEqual([]);
    for (const [name, named, viaHttp, viaTcp] of results) {
      expectMetadataRefusal(viaHttp, name);
      expect(viaHttp.summary).toContain(`${name} (`);
      expect(viaHttp.summary).toContain(named);
      expectMetadataRefusal(viaTcp, name);
    }
  });

  it('attack: an allowed server redirects http_check to [fd20:ce::254] or a NAT64 address; each hop is judged', async () => {
    for (const target of ['http://[fd20:ce::254]/computeMetadata/v1/', 'http://[64:ff9b::a9fe:a9fe]/']) {
      const result = await callTool(httpCheck, {
        url: `${base}/?to=${encodeURIComponent(target)}`,
        timeout_ms: 500,
      });
      expectMetadataRefusal(result, target);
      expect((dataOf(result).redirects as unknown[]).length).toBe(1);
    }
  });

  it('attack: local-use NAT64 with a /48, /56 or /64 prefix wraps 169.254.169.254', async () => {
    for (const host of ['64:ff9b:1:a9fe:a9:fe00::', '64:ff9b:1:a9:fe:a9fe::', '64:ff9b:1:0:a9:fea9:fe00:0']) {
      const result = await callTool(httpCheck, { url: `http://[${host}]/`, timeout_ms: 500 });
      expect(dataOf(result).refused, host).toBe(true);
      expect(result.summary).toMatch(
        /is local-use NAT64 that a gateway with a \/48, \/56 or \/64 prefix takes to the cloud metadata address 169\.254\.169\.254/,
      );
    }
    const guard = createNetworkGuard({ allow: [], deny: [] });
    await expect(guard.check('64:ff9b:1::a00:1')).resolves.toBeDefined();
  });

  it('attack: they stay refused when the deny list is emptied', async () => {
    const guard = createNetworkGuard({ allow: [], deny: [] }, { resolve: attackerDns });
    for (const [what, , host] of endpoints) {
      await expect(guard.check(host), what).rejects.toThrow(/cloud metadata address/);
    }
  });

  it('attack: an allow entry covering one of them, in any family or wrapping, is a settings error', () => {
    for (const entry of [
      '168.63.129.16',
      '168.63.0.0/16',
      '192.0.0.0/24',
      'fd20:ce::/32',
      'fd00:ec2::/32',
      'fd00:c1::/32',
      '64:ff9b:1::/48',
      '64:ff9b:1:2::/64',
      '::ffff:0:0:0/96',
      '::ffff:0:a83f:8110',
      '2002:c000:c0::/48',
    ]) {
      expect(() => createNetworkGuard({ allow: [entry], deny: [] }), entry).toThrow(/metadata range/);
    }
    expect(() =>
      createNetworkGuard({ allow: ['::1', '127.0.0.1', '2001:db8::/32', '64:ff9b:2::/48'], deny: [] }),
    ).not.toThrow();
  });

  it('attack: the shipped deny list leaves out the EKS, GCP, OCI and Azure addresses', async () => {
    const added = [
      '168.63.129.16/32',
      '192.0.0.192/32',
      'fd00:ec2::23/128',
      'fd20:ce::254/128',
      'fd00:c1::a9fe:a9fe/128',
    ];
    expect(ToolSettingsSchema.parse({}).network.deny).toEqual(expect.arrayContaining(added));
    const shipped = await loadSettings(fileURLToPath(new URL('../../opsbot.yaml', import.meta.url)));
    expect(shipped.settings.tools.network.deny).toEqual(expect.arrayContaining(added));
  });
});

describe('cloud metadata request headers', () => {
  it('attack: http_check sends Metadata-Flavor, X-aws-ec2-metadata-token or Metadata: true to an allowed host', async () => {
    const before = seen.length;
    expect((await callTool(httpCheck, { url: `${base}/` })).ok).toBe(true);
    expect(seen.length).toBe(before + 1);
    for (const headers of [
      { 'Metadata-Flavor': 'Google' },
      { 'metadata-flavor': 'Google' },
      { 'X-aws-ec2-metadata-token': 'AQAEAJ...' },
      { 'X-aws-ec2-metadata-token-ttl-seconds': '21600' },
      { Metadata: 'true' },
      { Metadata: 'True' },
      { 'X-Google-Metadata-Request': 'True' },
      { Accept: 'application/json', 'Metadata-Flavor': 'Google' },
    ]) {
      const result = await callTool(httpCheck, { url: `${base}/`, headers });
      const name = JSON.stringify(headers);
      expect(result.ok, name).toBe(false);
      expect(dataOf(result).refused, name).toBe(true);
      expect(result.summary, name).toMatch(
        /header is only for .+: it serves to read instance metadata and credentials/,
      );
    }
    expect(seen.length, 'no request with a metadata header reached the server').toBe(before + 1);
    expect((await callTool(httpCheck, { url: `${base}/`, headers: { 'X-Request-Id': 'abc' } })).ok).toBe(
      true,
    );
  });
});
