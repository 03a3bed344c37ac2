// Cloud metadata ranges: refused by every network check whatever the settings say, and never allowable.
import { BlockList } from 'node:net';
import { addressBits, canonicalIp, embeddedIpv4, type IpFamily } from './ip-address.js';

/**
 * Link-local IPv4 (AWS/GCP/Azure/Oracle/DigitalOcean 169.254.169.254, the AWS ECS credentials endpoint
 * 169.254.170.2), Alibaba Cloud's 100.100.100.200, link-local IPv6 and the AWS IPv6 metadata address.
 */
export const METADATA_RANGES = [
  '169.254.0.0/16',
  '100.100.100.200/32',
  'fe80::/10',
  'fd00:ec2::254/128',
] as const satisfies readonly string[];

interface Range {
  text: string;
  family: IpFamily;
  base: bigint;
  prefix: number;
}

let ranges: Range[] | undefined;

/**
 * The ranges as numbers, worked out with the first check that needs them: node:net's first IPv6 check compiles a
 * large regular expression (about 10 ms), which a start with no network check yet has no need of.
 */
function metadataRanges(): Range[] {
  ranges ??= METADATA_RANGES.map((text) => {
    const [address = '', prefix = ''] = text.split('/');
    const canonical = canonicalIp(address);
    if (!canonical) throw new Error(`bad metadata range ${text}`);
    return { text, family: canonical.family, base: addressBits(canonical), prefix: Number(prefix) };
  });
  return ranges;
}

/** Where IPv6 carries an IPv4 address: its fixed leading bits, their length, and the IPv4's bit offset. */
const IPV4_IN_IPV6 = [
  { base: 0xffffn << 32n, before: 96, shift: 0n }, // ::ffff:a.b.c.d
  { base: 0x64ff9bn << 96n, before: 96, shift: 0n }, // 64:ff9b::a.b.c.d (NAT64)
  { base: 0x2002n << 112n, before: 16, shift: 80n }, // 2002:aabb:ccdd:: (6to4)
];

const blocks = new BlockList();
for (const range of METADATA_RANGES) {
  const [address = '', prefix = ''] = range.split('/');
  blocks.addSubnet(address, Number(prefix), address.includes(':') ? 'ipv6' : 'ipv4');
}

/** Whether a canonical address (see canonicalIp) is a metadata address, also when carried in NAT64 or 6to4. */
export function isMetadataAddress(address: { address: string; family: IpFamily }): boolean {
  if (blocks.check(address.address, address.family === 4 ? 'ipv4' : 'ipv6')) return true;
  if (address.family === 4) return false;
  const carried = embeddedIpv4(address.address);
  return carried !== undefined && blocks.check(carried, 'ipv4');
}

/**
 * The metadata range an address or CIDR (canonical base, prefix length) shares any address with, or
 * undefined. IPv6 entries are also compared with the IPv4 ranges as IPv4-mapped, NAT64 and 6to4 addresses.
 */
export function metadataOverlap(
  canonical: { address: string; family: IpFamily },
  prefix: number,
): string | undefined {
  const bits = addressBits(canonical);
  const width = canonical.family === 4 ? 32 : 128;
  for (const range of metadataRanges()) {
    const candidates: { base: bigint; prefix: number }[] = [];
    if (range.family === canonical.family) candidates.push({ base: range.base, prefix: range.prefix });
    else if (range.family === 4) {
      for (const wrap of IPV4_IN_IPV6) {
        candidates.push({ base: wrap.base | (range.base << wrap.shift), prefix: range.prefix + wrap.before });
      }
    } else continue;
    for (const candidate of candidates) {
      const shared = BigInt(width - Math.min(prefix, candidate.prefix));
      if (bits >> shared === candidate.base >> shared) return range.text;
    }
  }
  return undefined;
}
