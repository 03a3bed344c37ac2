// Decides which hosts the network checks may reach: allow/deny hosts and CIDRs, judged on the resolved addresses.
import { lookup } from 'node:dns/promises';
import { BlockList } from 'node:net';
import { raceSignal } from './call-limits.js';
import { type IpAddress, type IpFamily, parseIp } from './ip-address.js';
import { canonicalIp, type Destination, otherNat64Readings } from './ipv4-in-ipv6.js';
import { METADATA_RANGES, metadataOverlap, metadataRangeOf } from './metadata-ranges.js';
import { isUnspecifiedAddress, unspecifiedOverlap, unspecifiedReason } from './unspecified-address.js';

export { METADATA_RANGES };

export interface NetworkRules {
  /** Hosts (example.com, *.example.com) or IPs/CIDRs; when non-empty, only these may be reached. */
  allow: string[];
  /** Hosts or IPs/CIDRs that may never be reached. */
  deny: string[];
}

export interface ResolvedAddress {
  address: string;
  family: IpFamily;
}

export interface CheckedTarget {
  host: string;
  /** Addresses that passed the rules; connect to these, never re-resolve the name. */
  addresses: ResolvedAddress[];
}

export type Resolve = (host: string) => Promise<ResolvedAddress[]>;

/** A refusal the model should read: the target is not allowed. */
export class NetworkRefusal extends Error {
  override name = 'NetworkRefusal';
}

export interface NetworkGuard {
  /** Resolves `host` and returns the addresses that may be used, or throws NetworkRefusal. */
  check(host: string, signal?: AbortSignal): Promise<CheckedTarget>;
}

interface CompiledRules {
  blocks: BlockList;
  hosts: string[];
  empty: boolean;
}

/** An allow entry that reaches into an always-refused range is a mistake nobody should be able to make quietly. */
function refuseAlwaysRefusedAllow(raw: string, ip: IpAddress, prefix: number): void {
  const fix = 'remove the entry or narrow it (an empty allow list already allows everything not denied)';
  const metadata = metadataOverlap(ip, prefix);
  if (metadata !== undefined) {
    throw new Error(
      `network.allow: ${JSON.stringify(raw)} overlaps the cloud metadata range ${metadata}, which is always refused; ${fix}`,
    );
  }
  const unspecified = unspecifiedOverlap(ip, prefix);
  if (unspecified !== undefined) {
    throw new Error(
      `network.allow: ${JSON.stringify(raw)} overlaps the unspecified addresses ${unspecified}, which Linux ` +
        `connects to this host and which are never a destination; ${fix}`,
    );
  }
}

function compileRules(entries: string[], kind: 'allow' | 'deny'): CompiledRules {
  const blocks = new BlockList();
  const hosts: string[] = [];
  for (const raw of entries) {
    const entry = raw.trim().toLowerCase();
    const [addressPart, prefixPart, extra] = entry.split('/');
    // As written, not unwrapped: "64:ff9b::/96" is an IPv6 range, though its addresses are judged as IPv4 too.
    const ip = parseIp(addressPart ?? '');
    if (ip && extra === undefined) {
      const type = ip.family === 4 ? 'ipv4' : 'ipv6';
      const maxPrefix = ip.family === 4 ? 32 : 128;
      const prefix = prefixPart === undefined ? maxPrefix : Number(prefixPart);
      if (prefixPart === undefined || (/^\d+$/.test(prefixPart) && prefix <= maxPrefix)) {
        if (kind === 'allow') refuseAlwaysRefusedAllow(raw, ip, prefix);
        blocks.addSubnet(ip.address, prefix, type);
        continue;
      }
    } else if (
      prefixPart === undefined &&
      /^(\*\.)?[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?(\.[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?)*$/.test(entry)
    ) {
      hosts.push(entry);
      continue;
    }
    throw new Error(
      `network.${kind}: ${JSON.stringify(raw)} is not a host name, *.domain, IP address or CIDR`,
    );
  }
  return { blocks, hosts, empty: entries.length === 0 };
}

/** What is wrong with one `network.allow` or `network.deny` entry, for the settings schema; undefined when fine. */
export function networkEntryProblem(entry: string, kind: 'allow' | 'deny'): string | undefined {
  try {
    compileRules([entry], kind);
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message.replace(/^network\.(allow|deny): /, '') : String(error);
  }
}

function hostMatches(host: string, patterns: string[]): boolean {
  return patterns.some((pattern) =>
    pattern.startsWith('*.')
      ? host.endsWith(pattern.slice(1)) && host.length > pattern.length - 1
      : host === pattern,
  );
}

/** Whether any form of the address (as written, and the IPv4 it carries) is in the rules' CIDRs. */
function inBlocks(rules: CompiledRules, forms: IpAddress[]): boolean {
  return forms.some((form) => rules.blocks.check(form.address, form.family === 4 ? 'ipv4' : 'ipv6'));
}

const systemResolve: Resolve = async (host) => {
  const found = await lookup(host, { all: true, verbatim: true });
  return found.map((entry) => ({ address: entry.address, family: entry.family === 6 ? 6 : 4 }));
};

function normalizeHost(host: string): string {
  let text = host.trim().toLowerCase();
  if (text.startsWith('[') && text.endsWith(']')) text = text.slice(1, -1);
  if (text.endsWith('.')) text = text.slice(0, -1);
  return text;
}

/**
 * Builds the guard from the settings' `network` rules. Throws at start-up on an entry it cannot read, and on
 * an allow entry that overlaps a metadata or unspecified range. Those are refused whatever `allow` and `deny`
 * say. Every address a name resolves to must pass, so a DNS name pointing at a metadata address is refused.
 */
export function createNetworkGuard(rules: NetworkRules, options: { resolve?: Resolve } = {}): NetworkGuard {
  const allow = compileRules(rules.allow, 'allow');
  const deny = compileRules(rules.deny, 'deny');
  const resolve = options.resolve ?? systemResolve;

  /** Judges the address a connection would go to; the metadata and unspecified ranges come before any list. */
  function judge(host: string, resolved: ResolvedAddress): string | undefined {
    const written = parseIp(resolved.address) ?? resolved;
    const destination: Destination = canonicalIp(resolved.address) ?? written;
    const subject = resolved.address === host ? host : `${host} (${resolved.address})`;
    const shown = destination.carrier
      ? `${subject}, ${destination.carrier} for ${destination.address},`
      : subject;
    const metadata = metadataRangeOf(destination);
    if (metadata) return `${shown} is a cloud metadata address (${metadata.what}), which is always refused`;
    const viaNat64 = otherNat64Readings(written).find((reading) => metadataRangeOf(reading));
    if (viaNat64) {
      return (
        `${subject} is local-use NAT64 that a gateway with a /48, /56 or /64 prefix takes to the cloud ` +
        `metadata address ${viaNat64.address}, which is always refused`
      );
    }
    if (isUnspecifiedAddress(destination)) return `${shown} ${unspecifiedReason(destination)}`;
    const forms = [written, destination];
    if (inBlocks(deny, forms)) return `${shown} is in the network deny list`;
    if (!allow.empty && !hostMatches(host, allow.hosts) && !inBlocks(allow, forms)) {
      return `${shown} is not in the network allow list`;
    }
    return undefined;
  }

  return {
    async check(rawHost, signal) {
      const host = normalizeHost(rawHost);
      if (host === '' || /[\s/\\\0@]/.test(host)) {
        throw new NetworkRefusal(`${JSON.stringify(rawHost)} is not a valid host name or address`);
      }
      if (hostMatches(host, deny.hosts)) throw new NetworkRefusal(`${host} is in the network deny list`);
      const literal = parseIp(host);
      let addresses: ResolvedAddress[];
      if (literal) {
        // Connect to the canonical IPv4 ("2852039166" must not reach the resolver again); keep IPv6 as given.
        addresses = [literal.family === 6 ? { address: host, family: 6 } : literal];
      } else {
        const resolving = resolve(host);
        addresses = await (signal ? raceSignal(resolving, signal) : resolving);
      }
      if (addresses.length === 0) throw new NetworkRefusal(`${host} did not resolve to any address`);
      for (const address of addresses) {
        // Judge every form of the address (mapped IPv6 also as IPv4), but connect to the address as resolved.
        const reason = judge(host, address);
        if (reason) throw new NetworkRefusal(`refused: ${reason}`);
      }
      return { host, addresses };
    },
  };
}
