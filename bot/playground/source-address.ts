// The peer a wrong token is counted against: one IPv4 address, or one IPv6 /64, since a single host is usually
// given a whole /64 and could otherwise rotate through it.
import { isIPv4, isIPv6 } from 'node:net';

export function sourceAddressKey(remoteAddress: string | undefined): string {
  const address = (remoteAddress ?? '').replace(/%.*$/, '').toLowerCase();
  if (isIPv4(address)) return address;
  if (!isIPv6(address)) return 'unknown';
  const groups = expandIPv6(address);
  // ::ffff:a.b.c.d is the IPv4 peer of a dual-stack socket: the same host as a.b.c.d.
  if (groups.slice(0, 5).every((group) => group === 0) && groups[5] === 0xffff) {
    return [groups[6]! >> 8, groups[6]! & 0xff, groups[7]! >> 8, groups[7]! & 0xff].join('.');
  }
  return `${groups
    .slice(0, 4)
    .map((group) => group.toString(16))
    .join(':')}::/64`;
}

/** The eight 16-bit groups of a valid IPv6 address, with `::` and a trailing dotted IPv4 part expanded. */
function expandIPv6(address: string): number[] {
  let text = address;
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const parse = (part: string) =>
    part === '' ? [] : part.split(':').map((group) => Number.parseInt(group, 16));
  const front = parse(head);
  const back = tail === undefined ? [] : parse(tail);
  return [...front, ...Array<number>(8 - front.length - back.length).fill(0), ...back];
}
