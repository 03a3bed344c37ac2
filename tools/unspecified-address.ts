// The unspecified addresses 0.0.0.0/8 and ::, which Linux connects to this host: never a destination.
import { type AddressRange, compileRange, rangeContains, rangeOverlaps } from './address-ranges.js';
import type { IpAddress } from './ip-address.js';

export const UNSPECIFIED_RANGES = ['0.0.0.0/8', '::/128'] as const;

let compiled: AddressRange[] | undefined;

function unspecifiedRanges(): AddressRange[] {
  compiled ??= UNSPECIFIED_RANGES.map(compileRange);
  return compiled;
}

/** Whether a destination (see canonicalIp, so "::ffff:0.0.0.0" is 0.0.0.0) is an unspecified address. */
export function isUnspecifiedAddress(destination: IpAddress): boolean {
  return unspecifiedRanges().some((range) => rangeContains(range, destination));
}

/** The unspecified range a settings CIDR (as written, and its prefix) shares an address with, or undefined. */
export function unspecifiedOverlap(cidr: IpAddress, prefix: number): string | undefined {
  return unspecifiedRanges().find((range) => rangeOverlaps(range, cidr, prefix))?.text;
}

/** Why such an address is refused, for a person reading the refusal. */
export function unspecifiedReason(destination: IpAddress): string {
  if (destination.family === 4 && destination.address !== '0.0.0.0') {
    return 'is in 0.0.0.0/8, the unspecified "this network" addresses, which are never a destination';
  }
  return 'is the unspecified address, which Linux connects to this host; it is never a destination';
}
