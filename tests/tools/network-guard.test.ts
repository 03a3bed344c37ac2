// The network guard: metadata refused by default, allow/deny hosts and CIDRs, judged on resolved addresses.
import { describe, expect, it } from 'vitest';
import { canonicalIp } from '../../tools/ipv4-in-ipv6.js';
import { createNetworkGuard, NetworkRefusal, type Resolve } from '../../tools/network-guard.js';
import { createTcpCheckTool } from '../../tools/tcp-check.js';
import { ToolSettingsSchema } from '../../tools/tool-settings-schema.js';
import { callTool, dataOf } from './helpers/tool-context.js';

const defaults = ToolSettingsSchema.parse({}).network;

/** A resolver with fixed answers, standing in for DNS names that point at chosen addresses. */
const fakeDns: Resolve = async (host) => {
  const answers: Record<string, { address: string; family: 4 | 6 }[]> = {
    'metadata.evil.test': [{ address: '169.254.169.254', family: 4 }],
    'mixed.evil.test': [
      { address: '127.0.0.1', family: 4 },
      { address: '::ffff:169.254.169.254', family: 6 },
    ],
    'internal.test': [{ address: '10.9.9.9', family: 4 }],
    'api.svc.test': [{ address: '10.1.1.1', family: 4 }],
    'svc.test.evil': [{ address: '10.1.1.2', family: 4 }],
  };
  const found = answers[host];
  if (!found) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
  return found;
};

async function refusal(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(NetworkRefusal);
  return (error as Error).message;
}

describe('network guard', () => {
  it('refuses the cloud metadata address by default, in every spelling', async () => {
    const guard = createNetworkGuard(defaults, { resolve: fakeDns });
    for (const host of ['169.254.169.254', '::ffff:169.254.169.254', '[::ffff:a9fe:a9fe]', 'fd00:ec2::254']) {
      expect(await refusal(guard.check(host))).toContain('cloud metadata address');
    }
    await expect(guard.check('127.0.0.1')).resolves.toEqual({
      host: '127.0.0.1',
      addresses: [{ address: '127.0.0.1', family: 4 }],
    });
  });

  it('refuses a DNS name that resolves to the metadata address, even among other addresses', async () => {
    const guard = createNetworkGuard(defaults, { resolve: fakeDns });
    expect(await refusal(guard.check('metadata.evil.test'))).toContain(
      'metadata.evil.test (169.254.169.254)',
    );
    expect(await refusal(guard.check('mixed.evil.test'))).toContain('cloud metadata address');
  });

  it('keeps refusing metadata when the deny list is replaced, and refuses an allow entry for it', async () => {
    const replaced = createNetworkGuard({ allow: [], deny: ['10.0.0.0/8'] });
    expect(await refusal(replaced.check('169.254.169.254'))).toContain('cloud metadata address');
    expect(() => createNetworkGuard({ allow: ['169.254.169.254'], deny: [] })).toThrow(/metadata range/);
  });

  it('applies deny CIDRs and host names, checking what names resolve to with the real resolver', async () => {
    const guard = createNetworkGuard({ allow: [], deny: ['10.0.0.0/8', '127.0.0.0/8', 'blocked.test'] });
    expect(await refusal(guard.check('10.2.3.4'))).toContain('deny list');
    expect(await refusal(guard.check('blocked.test'))).toContain('deny list');
    // "localhost" goes through the system resolver; whichever address it gets, loopback is denied or allowed
    // consistently with the rules (::1 is not in 127.0.0.0/8).
    const localhost = await guard.check('localhost').then(
      (target) => target.addresses.map((entry) => entry.address),
      (error: Error) => error.message,
    );
    if (Array.isArray(localhost))
      expect(localhost.every((address) => !address.startsWith('127.'))).toBe(true);
    else expect(localhost).toContain('localhost (127.');
    await expect(guard.check('192.168.1.10')).resolves.toBeDefined();
  });

  it('with an allow list, lets through only listed hosts, wildcards and CIDRs', async () => {
    const guard = createNetworkGuard(
      { allow: ['127.0.0.0/8', 'internal.test', '*.svc.test', '2001:db8::/32'], deny: defaults.deny },
      { resolve: fakeDns },
    );
    await expect(guard.check('127.0.0.1')).resolves.toBeDefined();
    await expect(guard.check('internal.test')).resolves.toBeDefined();
    await expect(guard.check('api.svc.test')).resolves.toBeDefined();
    await expect(guard.check('2001:db8::5')).resolves.toBeDefined();
    expect(await refusal(guard.check('192.168.1.10'))).toContain('not in the network allow list');
    expect(await refusal(guard.check('svc.test.evil'))).toContain('not in the network allow list');
    expect(await refusal(guard.check('metadata.evil.test'))).toContain('cloud metadata address');
  });

  it('refuses malformed hosts and settings entries it cannot read', async () => {
    const guard = createNetworkGuard(defaults);
    expect(await refusal(guard.check('user@host'))).toContain('not a valid host');
    expect(() => createNetworkGuard({ allow: ['10.0.0.0/99'], deny: [] })).toThrow(/network.allow/);
    expect(() => createNetworkGuard({ allow: [], deny: ['not a host!'] })).toThrow(/network.deny/);
  });

  it('is what makes tcp_check refuse a name pointing at the metadata address', async () => {
    const tool = createTcpCheckTool({ guard: createNetworkGuard(defaults, { resolve: fakeDns }) });
    const result = await callTool(tool, { host: 'metadata.evil.test', port: 80 });
    expect(result.ok).toBe(false);
    expect(dataOf(result).refused).toBe(true);
    expect(result.summary).toContain('metadata.evil.test (169.254.169.254) is a cloud metadata address');
  });

  it('canonicalizes IPv4-mapped IPv6 addresses', () => {
    expect(canonicalIp('::ffff:169.254.169.254')?.address).toBe('169.254.169.254');
    expect(canonicalIp('::ffff:a9fe:a9fe')?.address).toBe('169.254.169.254');
    expect(canonicalIp('::1')).toEqual({ address: '0:0:0:0:0:0:0:1', family: 6 });
    expect(canonicalIp('example.com')).toBeUndefined();
  });
});
