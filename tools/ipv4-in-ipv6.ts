// IPv6 forms that carry an IPv4 address (mapped, translated, NAT64, 6to4, compatible), judged as that IPv4.
import { addressBits, type IpAddress, ipv4FromBits, parseIp } from './ip-address.js';

/** One way IPv6 carries IPv4: the prefix that marks it and where in the address the IPv4 sits. */
export interface Ipv4Carrier {
  name: string;
  prefix: string;
  /** Bits below the carried IPv4: 0 when it is the last 32 bits. */
  ipv4Shift: bigint;
  /** Addresses in here are not read as carrying IPv4 (`::` and `::1` are not IPv4-compatible addresses). */
  notWithin?: string;
}

/** Every form the issue and RFCs 4291, 6052, 6145, 8215 and 3056 define; a connection to one may reach the IPv4. */
export const IPV4_CARRIERS: readonly Ipv4Carrier[] = [
  { name: 'IPv4-mapped', prefix: '::ffff:0:0/96', ipv4Shift: 0n },
  { name: 'IPv4-translated', prefix: '::ffff:0:0:0/96', ipv4Shift: 0n },
  { name: 'NAT64', prefix: '64:ff9b::/96', ipv4Shift: 0n },
  // RFC 8215's local-use block; read as a /96 NAT64 prefix, the IPv4 in its last 32 bits.
  { name: 'local NAT64', prefix: '64:ff9b:1::/48', ipv4Shift: 0n },
  { name: '6to4', prefix: '2002::/16', ipv4Shift: 80n },
  { name: 'IPv4-compatible', prefix: '::/96', ipv4Shift: 0n, notWithin: '::/112' },
];

export interface CompiledPrefix {
  base: bigint;
  length: number;
}

/** An IPv6 CIDR as numbers. */
export function ipv6Prefix(text: string): CompiledPrefix {
  const [address = '', length = ''] = text.split('/');
  const parsed = parseIp(address);
  if (parsed?.family !== 6) throw new Error(`bad IPv6 prefix ${text}`);
  return { base: addressBits(parsed), length: Number(length) };
}

/** Whether the first `length` bits of two 128-bit (or 32-bit, with width) numbers agree. */
export function samePrefix(a: bigint, b: bigint, length: number, width = 128): boolean {
  const shift = BigInt(width - length);
  return a >> shift === b >> shift;
}

interface CompiledCarrier extends Ipv4Carrier {
  compiled: CompiledPrefix;
  excluded?: CompiledPrefix;
}

let compiledCarriers: CompiledCarrier[] | undefined;

/** Compiled on first use, so a start with no network check does no address parsing. */
export function carriers(): CompiledCarrier[] {
  compiledCarriers ??= IPV4_CARRIERS.map((carrier) => ({
    ...carrier,
    compiled: ipv6Prefix(carrier.prefix),
    ...(carrier.notWithin ? { excluded: ipv6Prefix(carrier.notWithin) } : {}),
  }));
  return compiledCarriers;
}

/** A destination address: the IPv4 a carrier form holds, or the address itself; `carrier` names the form. */
export interface Destination extends IpAddress {
  carrier?: string;
}

/** The carrier form an IPv6 address (as 128 bits) is in, and the IPv4 it carries; undefined for other IPv6. */
export function carriedIpv4(bits: bigint): { carrier: string; ipv4: string } | undefined {
  for (const carrier of carriers()) {
    if (!samePrefix(bits, carrier.compiled.base, carrier.compiled.length)) continue;
    if (carrier.excluded && samePrefix(bits, carrier.excluded.base, carrier.excluded.length)) continue;
    return { carrier: carrier.name, ipv4: ipv4FromBits(bits >> carrier.ipv4Shift) };
  }
  return undefined;
}

/**
 * The address a connection to `text` is judged as: IPv4 in any inet_aton spelling as a dotted quad, an IPv6
 * form carrying IPv4 as that IPv4, other IPv6 expanded. Undefined when the text is not an IP address.
 */
export function canonicalIp(text: string): Destination | undefined {
  const parsed = parseIp(text);
  if (parsed?.family !== 6) return parsed;
  const carried = carriedIpv4(addressBits(parsed));
  return carried ? { address: carried.ipv4, family: 4, carrier: carried.carrier } : parsed;
}

const LOCAL_NAT64 = '64:ff9b:1::/48';
/** RFC 6052 prefix lengths other than /96 that a NAT64 inside the local-use /48 may use. */
const SHORTER_NAT64_PREFIXES = [48, 56, 64];

/**
 * The IPv4 a local-use NAT64 address would reach if its gateway used a /48, /56 or /64 prefix (RFC 6052 puts the
 * IPv4 after the prefix, skipping bits 64-71). Only checked against the metadata ranges: which prefix length a
 * gateway uses is not known here, and any of them could lead to the metadata service.
 */
export function otherNat64Readings(address: IpAddress): IpAddress[] {
  if (address.family !== 6) return [];
  const bits = addressBits(address);
  const local = ipv6Prefix(LOCAL_NAT64);
  if (!samePrefix(bits, local.base, local.length)) return [];
  const withoutBits64To71 = ((bits >> 64n) << 56n) | (bits & ((1n << 56n) - 1n));
  return SHORTER_NAT64_PREFIXES.map((length) => ({
    address: ipv4FromBits(withoutBits64To71 >> BigInt(120 - length - 32)),
    family: 4,
  }));
}
