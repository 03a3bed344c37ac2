// Address normalisation: every IPv6 form that carries IPv4 is judged as that IPv4, other addresses as written.
import { describe, expect, it } from 'vitest';
import { parseIp } from '../../tools/ip-address.js';
import { canonicalIp, otherNat64Readings } from '../../tools/ipv4-in-ipv6.js';

/** Input, the address it is judged as, and the carrier form named in a refusal (none when not carried). */
const rows: [string, string, string?][] = [
  ['169.254.169.254', '169.254.169.254'],
  ['2852039166', '169.254.169.254'],
  ['0', '0.0.0.0'],
  ['0x0', '0.0.0.0'],
  ['0.0.0.0', '0.0.0.0'],
  ['::ffff:169.254.169.254', '169.254.169.254', 'IPv4-mapped'],
  ['[::ffff:a9fe:a9fe]', '169.254.169.254', 'IPv4-mapped'],
  ['::ffff:0.0.0.0', '0.0.0.0', 'IPv4-mapped'],
  ['::ffff:0:a9fe:a9fe', '169.254.169.254', 'IPv4-translated'],
  ['::ffff:0:169.254.169.254', '169.254.169.254', 'IPv4-translated'],
  ['64:ff9b::a9fe:a9fe', '169.254.169.254', 'NAT64'],
  ['64:ff9b::169.254.169.254', '169.254.169.254', 'NAT64'],
  ['64:ff9b:1::a9fe:a9fe', '169.254.169.254', 'local NAT64'],
  ['64:ff9b:1:ffff:1::a9fe:a9fe', '169.254.169.254', 'local NAT64'],
  ['2002:a9fe:a9fe::1', '169.254.169.254', '6to4'],
  ['2002:a83f:8110:1::', '168.63.129.16', '6to4'],
  ['::a9fe:a9fe', '169.254.169.254', 'IPv4-compatible'],
  ['::169.254.169.254', '169.254.169.254', 'IPv4-compatible'],
  ['::7f00:1', '127.0.0.1', 'IPv4-compatible'],
  // Not carried IPv4: the unspecified and loopback IPv6 addresses, and addresses just outside each prefix.
  ['::', '0:0:0:0:0:0:0:0'],
  ['[::]', '0:0:0:0:0:0:0:0'],
  ['::1', '0:0:0:0:0:0:0:1'],
  ['64:ff9b:2::a9fe:a9fe', '64:ff9b:2:0:0:0:a9fe:a9fe'],
  ['64:ff9b:0:1::a9fe:a9fe', '64:ff9b:0:1:0:0:a9fe:a9fe'],
  ['2003:a9fe:a9fe::1', '2003:a9fe:a9fe:0:0:0:0:1'],
  ['fd00:ec2::254', 'fd00:ec2:0:0:0:0:0:254'],
  ['fe80::1%eth0', 'fe80:0:0:0:0:0:0:1'],
];

describe('address normalisation', () => {
  it.each(rows)('%s is judged as %s', (input, judgedAs, carrier) => {
    const destination = canonicalIp(input);
    expect(destination?.address).toBe(judgedAs);
    expect(destination?.carrier).toBe(carrier);
    expect(destination?.family).toBe(judgedAs.includes(':') ? 6 : 4);
  });

  it.each([
    ['64:ff9b:1:a9fe:a9:fe00::', '169.254.169.254', 48],
    ['64:ff9b:1:a9:fe:a9fe::', '169.254.169.254', 56],
    ['64:ff9b:1:0:a9:fea9:fe00:0', '169.254.169.254', 64],
  ])('local-use NAT64 %s reaches %s with a /%i prefix', (input, ipv4, length) => {
    const readings = otherNat64Readings(parseIp(input) ?? { address: '', family: 6 });
    expect(readings[[48, 56, 64].indexOf(length)]).toEqual({ address: ipv4, family: 4 });
  });

  it('reads no other NAT64 prefix lengths outside the local-use /48', () => {
    expect(otherNat64Readings({ address: '64:ff9b:0:a9fe:a9:fe00::', family: 6 })).toEqual([]);
    expect(otherNat64Readings({ address: '169.254.169.254', family: 4 })).toEqual([]);
  });

  it('leaves names alone, and parses settings entries as written', () => {
    expect(canonicalIp('example.com')).toBeUndefined();
    expect(canonicalIp('1.2.3.4.5')).toBeUndefined();
    expect(parseIp('64:ff9b::')).toEqual({ address: '64:ff9b:0:0:0:0:0:0', family: 6 });
    expect(parseIp('::ffff:10.0.0.1')).toEqual({ address: '0:0:0:0:0:ffff:a00:1', family: 6 });
  });
});
