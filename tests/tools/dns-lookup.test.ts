// dns_lookup against a real DNS server on a local UDP port.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDnsLookupTool } from '../../tools/dns-lookup.js';
import { type DnsTestServer, startDnsServer } from './helpers/dns-server.js';
import { callTool, dataOf } from './helpers/tool-context.js';

let server: DnsTestServer;

beforeAll(async () => {
  server = await startDnsServer({
    'api.opsbot.test': { A: ['10.1.2.3', '10.1.2.4'], AAAA: ['2001:db8::7'] },
    'www.opsbot.test': { CNAME: ['api.opsbot.test'] },
    'opsbot.test': {
      MX: [
        { priority: 20, exchange: 'backup-mx.opsbot.test' },
        { priority: 10, exchange: 'mx.opsbot.test' },
      ],
      TXT: [['v=spf1 ', '-all'], ['verification=abc123']],
      NS: ['ns1.opsbot.test', 'ns2.opsbot.test'],
    },
    '_https._tcp.opsbot.test': { SRV: [{ priority: 10, weight: 5, port: 8443, target: 'api.opsbot.test' }] },
  });
});

afterAll(async () => {
  await server.close();
});

function tool() {
  return createDnsLookupTool({ servers: [server.address] });
}

describe('dns_lookup', () => {
  it('returns A records with TTLs from the configured server', async () => {
    const result = await callTool(tool(), { name: 'api.opsbot.test' });
    expect(result.ok).toBe(true);
    expect(dataOf(result).records).toEqual([
      { address: '10.1.2.3', ttl: 300 },
      { address: '10.1.2.4', ttl: 300 },
    ]);
    expect(result.summary).toBe('api.opsbot.test has 2 A records: 10.1.2.3, 10.1.2.4.');
    expect(server.queries.some((query) => query.name === 'api.opsbot.test')).toBe(true);
  });

  it('returns AAAA, CNAME, MX, TXT, NS and SRV records as rows', async () => {
    const rows = async (name: string, type: string) => dataOf(await callTool(tool(), { name, type })).records;
    expect(await rows('api.opsbot.test', 'AAAA')).toEqual([{ address: '2001:db8::7', ttl: 300 }]);
    expect(await rows('www.opsbot.test', 'CNAME')).toEqual([{ target: 'api.opsbot.test' }]);
    expect(await rows('opsbot.test', 'MX')).toEqual([
      { priority: 10, exchange: 'mx.opsbot.test' },
      { priority: 20, exchange: 'backup-mx.opsbot.test' },
    ]);
    expect(await rows('opsbot.test', 'TXT')).toEqual([
      { text: 'v=spf1 -all' },
      { text: 'verification=abc123' },
    ]);
    expect(await rows('opsbot.test', 'NS')).toEqual([
      { host: 'ns1.opsbot.test' },
      { host: 'ns2.opsbot.test' },
    ]);
    expect(await rows('_https._tcp.opsbot.test', 'SRV')).toEqual([
      { priority: 10, weight: 5, port: 8443, target: 'api.opsbot.test' },
    ]);
  });

  it('reports a name that does not exist and a type that has no records', async () => {
    const missing = await callTool(tool(), { name: 'nope.opsbot.test' });
    expect(missing.ok).toBe(false);
    expect(dataOf(missing).error_code).toBe('ENOTFOUND');
    expect(missing.summary).toContain('does not exist');
    const noData = await callTool(tool(), { name: 'www.opsbot.test', type: 'MX' });
    expect(noData.ok).toBe(false);
    expect(dataOf(noData).error_code).toBe('ENODATA');
  });

  it('fails clearly, within its time limit, when the server is gone', async () => {
    const silent = await startDnsServer({});
    await silent.close();
    const result = await callTool(createDnsLookupTool({ servers: [silent.address] }), {
      name: 'api.opsbot.test',
      timeout_ms: 300,
    });
    expect(result.ok).toBe(false);
    expect(['ECONNREFUSED', 'ETIMEOUT']).toContain(dataOf(result).error_code);
  });

  it('refuses names that are not DNS names and bad server settings at start-up', () => {
    expect(() => tool().input.parse({ name: '-x.example' })).toThrow();
    expect(() => tool().input.parse({ name: 'a b' })).toThrow();
    expect(() => createDnsLookupTool({ servers: ['not a server'] })).toThrow();
  });
});
