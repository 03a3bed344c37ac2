// IP address text made canonical, so "::ffff:169.254.169.254" and "169.254.169.254" are judged alike.
import { isIP } from 'node:net';

export type IpFamily = 4 | 6;

/** Expands an IPv6 address to its eight 16-bit groups, or returns undefined if it is not one. */
function ipv6Groups(address: string): number[] | undefined {
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

/**
 * The canonical form of an address: IPv4 as dotted quad, IPv4-mapped and IPv4-compatible IPv6 as the IPv4 it
 * carries, other IPv6 fully expanded in lowercase. Undefined when the text is not an IP address.
 */
export function canonicalIp(text: string): { address: string; family: IpFamily } | undefined {
  const bare = text.startsWith('[') && text.endsWith(']') ? text.slice(1, -1) : text;
  const family = isIP(bare);
  if (family === 4) return { address: bare.split('.').map(Number).join('.'), family: 4 };
  if (family !== 6) return undefined;
  const groups = ipv6Groups(bare);
  if (!groups) return undefined;
  const firstFive = groups.slice(0, 5).every((group) => group === 0);
  const mapped = firstFive && groups[5] === 0xffff;
  const compatible = firstFive && groups[5] === 0 && (groups[6] ?? 0) !== 0;
  if (mapped || compatible) {
    const high = groups[6] ?? 0;
    const low = groups[7] ?? 0;
    return { address: [high >> 8, high & 0xff, low >> 8, low & 0xff].join('.'), family: 4 };
  }
  return { address: groups.map((group) => group.toString(16)).join(':'), family: 6 };
}
