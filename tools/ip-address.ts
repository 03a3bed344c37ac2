// IP address text parsed as written: "2852039166" and "169.254.169.254" are one IPv4, IPv6 is expanded; nothing unwrapped.
import { isIP } from 'node:net';

export type IpFamily = 4 | 6;

export interface IpAddress {
  address: string;
  family: IpFamily;
}

/** Expands an IPv6 address to its eight 16-bit groups, or returns undefined if it is not one. */
export function ipv6Groups(address: string): number[] | undefined {
  let text = address.toLowerCase();
  const zone = text.indexOf('%');
  if (zone !== -1) text = text.slice(0, zone);
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted?.[1]) {
    const parts = dotted[1].split('.').map(Number);
    const [a = 0, b = 0, c = 0, d = 0] = parts;
    text = `${text.slice(0, -dotted[1].length)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const halves = text.split('::');
  if (halves.length > 2) return undefined;
  const head = halves[0] ? halves[0].split(':') : [];
  const tail = halves.length === 2 && halves[1] ? halves[1].split(':') : [];
  const missing = 8 - head.length - tail.length;
  if (halves.length === 1 && missing !== 0) return undefined;
  if (missing < 0) return undefined;
  const groups = [...head, ...Array<string>(halves.length === 2 ? missing : 0).fill('0'), ...tail];
  const numbers = groups.map((group) => Number.parseInt(group, 16));
  if (numbers.length !== 8 || numbers.some((n) => Number.isNaN(n) || n < 0 || n > 0xffff)) return undefined;
  return numbers;
}

function legacyPart(text: string): number | undefined {
  if (/^0x[0-9a-f]*$/i.test(text)) return text.length === 2 ? 0 : Number.parseInt(text.slice(2), 16);
  if (/^0[0-7]+$/.test(text)) return Number.parseInt(text.slice(1), 8);
  if (/^(0|[1-9]\d*)$/.test(text)) return Number(text);
  return undefined;
}

/**
 * The IPv4 forms inet_aton and URL parsers accept besides the dotted quad: one to four parts, each decimal,
 * octal (leading 0) or hex (0x), the last filling the remaining bytes ("2852039166", "0251.0376.0251.0376",
 * "0xa9fea9fe", "169.254.43518", "0", "0x0"). The system resolver turns these into addresses, so the guard must too.
 */
export function legacyIpv4(text: string): string | undefined {
  const parts = text.split('.');
  if (parts.length > 4) return undefined;
  const numbers = parts.map(legacyPart);
  if (numbers.some((n) => n === undefined)) return undefined;
  const values = numbers as number[];
  const last = values[values.length - 1] ?? 0;
  const leading = values.slice(0, -1);
  if (leading.some((n) => n > 255)) return undefined;
  if (last >= 2 ** (8 * (5 - values.length))) return undefined;
  let value = last;
  leading.forEach((byte, index) => {
    value += byte * 2 ** (8 * (3 - index));
  });
  return ipv4FromBits(BigInt(value));
}

/**
 * An address as written, made canonical but not unwrapped: IPv4 as a dotted quad (from any inet_aton spelling),
 * IPv6 fully expanded in lowercase without its zone. Undefined when the text is not an IP address.
 */
export function parseIp(text: string): IpAddress | undefined {
  const bare = text.startsWith('[') && text.endsWith(']') ? text.slice(1, -1) : text;
  const family = isIP(bare);
  if (family === 4) return { address: bare.split('.').map(Number).join('.'), family: 4 };
  if (family !== 6) {
    const legacy = legacyIpv4(bare);
    return legacy ? { address: legacy, family: 4 } : undefined;
  }
  const groups = ipv6Groups(bare);
  if (!groups) return undefined;
  return { address: groups.map((group) => group.toString(16)).join(':'), family: 6 };
}

/** An address (or CIDR base) as a number, for prefix arithmetic: 32 bits for IPv4, 128 for IPv6. */
export function addressBits(canonical: IpAddress): bigint {
  if (canonical.family === 4) {
    return canonical.address.split('.').reduce((sum, byte) => (sum << 8n) | BigInt(Number(byte)), 0n);
  }
  return (ipv6Groups(canonical.address) ?? []).reduce((sum, group) => (sum << 16n) | BigInt(group), 0n);
}

/** The dotted quad of the low 32 bits of `bits`. */
export function ipv4FromBits(bits: bigint): string {
  const value = Number(bits & 0xffffffffn);
  return [value >>> 24, (value >>> 16) & 0xff, (value >>> 8) & 0xff, value & 0xff].join('.');
}
