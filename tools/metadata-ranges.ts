// Cloud metadata, credential and wire-server addresses: refused by every network check, never allowable.
import { type AddressRange, compileRange, rangeContains, rangeOverlaps } from './address-ranges.js';
import type { IpAddress } from './ip-address.js';

/** One always-refused range, with what lives there for the refusal message and the docs. */
export interface MetadataRange {
  range: string;
  what: string;
}

/** Each cloud's documented endpoints, in both families. Keep docs/security.md's table in step. */
export const METADATA_ENDPOINTS = [
  { range: '169.254.0.0/16', what: 'link-local IPv4, where clouds serve metadata and credentials' },
  { range: '100.100.100.200/32', what: 'Alibaba Cloud metadata' },
  { range: '168.63.129.16/32', what: 'Azure WireServer' },
  { range: '192.0.0.192/32', what: 'OCI metadata' },
  { range: 'fe80::/10', what: 'link-local IPv6' },
  { range: 'fd00:ec2::254/128', what: 'AWS metadata over IPv6' },
  { range: 'fd00:ec2::23/128', what: 'EKS Pod Identity over IPv6' },
  { range: 'fd20:ce::254/128', what: 'GCP metadata over IPv6, metadata.google.internal' },
  { range: 'fd00:c1::a9fe:a9fe/128', what: 'OCI metadata over IPv6' },
] as const satisfies readonly MetadataRange[];

export const METADATA_RANGES: string[] = METADATA_ENDPOINTS.map((endpoint) => endpoint.range);

/** The documented endpoints inside link-local 169.254.0.0/16, named in the refusal. */
const LINK_LOCAL_ENDPOINTS: ReadonlyMap<string, string> = new Map([
  ['169.254.169.254', 'instance metadata of AWS, GCP, Azure, OCI, DigitalOcean and OpenStack'],
  ['169.254.170.2', 'ECS task credentials'],
  ['169.254.170.23', 'EKS Pod Identity'],
]);

let compiled: (AddressRange & MetadataRange)[] | undefined;

/** Compiled with the first check that needs them, so a start with no network check does no address parsing. */
function metadataRanges(): (AddressRange & MetadataRange)[] {
  compiled ??= METADATA_ENDPOINTS.map((endpoint) => ({ ...compileRange(endpoint.range), ...endpoint }));
  return compiled;
}

/** The metadata range a destination (see canonicalIp: carried IPv4 already unwrapped) lies in, or undefined. */
export function metadataRangeOf(destination: IpAddress): MetadataRange | undefined {
  const found = metadataRanges().find((range) => rangeContains(range, destination));
  if (!found) return undefined;
  const named = destination.family === 4 ? LINK_LOCAL_ENDPOINTS.get(destination.address) : undefined;
  return { range: found.range, what: named ?? found.what };
}

/** The metadata range a settings CIDR (as written, and its prefix) shares any address with, or undefined. */
export function metadataOverlap(cidr: IpAddress, prefix: number): string | undefined {
  return metadataRanges().find((range) => rangeOverlaps(range, cidr, prefix))?.text;
}
