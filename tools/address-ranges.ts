// CIDR ranges as numbers: does a range hold an address, and does a settings CIDR share any address with it.
import { addressBits, type IpAddress, type IpFamily, parseIp } from './ip-address.js';
import { carriers, samePrefix } from './ipv4-in-ipv6.js';

export interface AddressRange {
  text: string;
  family: IpFamily;
  base: bigint;
  prefix: number;
}

export function compileRange(text: string): AddressRange {
  const [address = '', prefix = ''] = text.split('/');
  const parsed = parseIp(address);
  if (!parsed) throw new Error(`bad address range ${text}`);
  return { text, family: parsed.family, base: addressBits(parsed), prefix: Number(prefix) };
}

/** Whether a canonical address (see canonicalIp) lies in the range. */
export function rangeContains(range: AddressRange, address: IpAddress): boolean {
  if (range.family !== address.family) return false;
  return samePrefix(addressBits(address), range.base, range.prefix, range.family === 4 ? 32 : 128);
}

/** Whether bits [from, to) of two 128-bit numbers agree. */
function agreeOn(a: bigint, b: bigint, from: number, to: number): boolean {
  if (to <= from) return true;
  const mask = ((1n << BigInt(to - from)) - 1n) << BigInt(128 - to);
  return (a & mask) === (b & mask);
}

/**
 * Whether the CIDR (an address as written, see parseIp, and a prefix length) shares any address with the range.
 * An IPv6 CIDR is also compared with an IPv4 range through every form that carries IPv4 (IPV4_CARRIERS).
 */
export function rangeOverlaps(range: AddressRange, cidr: IpAddress, prefix: number): boolean {
  const bits = addressBits(cidr);
  if (range.family === cidr.family) {
    return samePrefix(bits, range.base, Math.min(prefix, range.prefix), range.family === 4 ? 32 : 128);
  }
  if (range.family === 6) return false;
  return carriers().some((carrier) => {
    const { excluded } = carrier;
    if (excluded && prefix >= excluded.length && samePrefix(bits, excluded.base, excluded.length))
      return false;
    const ipv4Start = 96 - Number(carrier.ipv4Shift);
    return (
      agreeOn(bits, carrier.compiled.base, 0, Math.min(prefix, carrier.compiled.length)) &&
      agreeOn(bits, range.base << carrier.ipv4Shift, ipv4Start, Math.min(prefix, ipv4Start + range.prefix))
    );
  });
}
