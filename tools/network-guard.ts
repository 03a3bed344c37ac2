// Decides which hosts the network checks may reach: allow/deny hosts and CIDRs, judged on the resolved addresses.
import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';
import { raceSignal } from './call-limits.js';
import { canonicalIp, type IpFamily } from './ip-address.js';
import { isMetadataAddress, METADATA_RANGES, metadataOverlap } from './metadata-ranges.js';

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

/** An allow entry that reaches into a metadata range is a mistake nobody should be able to make quietly. */
function refuseMetadataAllow(raw: string, ip: { address: string; family: IpFamily }, prefix: number): void {
  const range = metadataOverlap(ip, prefix);
  if (range === undefined) return;
  throw new Error(
    `network.allow: ${JSON.stringify(raw)} overlaps the cloud metadata range ${range}, which is always refused; ` +
      'remove the entry or narrow it (an empty allow list already allows everything not denied)',
  );
}

function compileRules(entries: string[], kind: 'allow' | 'deny'): CompiledRules {
  const blocks = new BlockList();
  const hosts: string[] = [];
  for (const raw of entries) {
    const entry = raw.trim().toLowerCase();
    const [addressPart, prefixPart, extra] = entry.split('/');
    const ip = canonicalIp(addressPart ?? '');
    if (ip && extra === undefined) {
      const type = ip.family === 4 ? 'ipv4' : 'ipv6';
      const maxPrefix = ip.family === 4 ? 32 : 128;
      const prefix = prefixPart === undefined ? maxPrefix : Number(prefixPart);
      if (prefixPart === undefined || (/^\d+$/.test(prefixPart) && prefix <= maxPrefix)) {
        if (kind === 'allow') refuseMetadataAllow(raw, ip, prefix);
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

function inBlocks(rules: CompiledRules, address: ResolvedAddress): boolean {
  return rules.blocks.check(address.address, address.family === 4 ? 'ipv4' : 'ipv6');
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
 * an allow entry that overlaps a metadata range. Metadata ranges are refused whatever `deny` says. Every
 * address a name resolves to must pass, so a DNS name pointing at a metadata address is refused.
 */
export function createNetworkGuard(rules: NetworkRules, options: { resolve?: Resolve } = {}): NetworkGuard {
  const allow = compileRules(rules.allow, 'allow');
  const deny = compileRules(rules.deny, 'deny');
  const resolve = options.resolve ?? systemResolve;

  function judge(host: string, address: ResolvedAddress): string | undefined {
    const shown = address.address === host ? host : `${host} (${address.address})`;
    if (isMetadataAddress(address)) {
      return `${shown} is a cloud metadata address, which is always refused`;
    }
    if (inBlocks(deny, address)) return `${shown} is in the network deny list`;
    if (!allow.empty && !hostMatches(host, allow.hosts) && !inBlocks(allow, address)) {
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
      const literal = canonicalIp(host);
      let addresses: ResolvedAddress[];
      if (literal) {
        // Connect to the canonical IPv4 ("2852039166" must not reach the resolver again); keep IPv6 as given.
        addresses = [isIP(host) === 6 ? { address: host, family: 6 } : literal];
      } else {
        const resolving = resolve(host);
        addresses = await (signal ? raceSignal(resolving, signal) : resolving);
      }
      if (addresses.length === 0) throw new NetworkRefusal(`${host} did not resolve to any address`);
      for (const address of addresses) {
        // Judge the canonical form (mapped IPv6 becomes IPv4), but connect to the address as resolved.
        const reason = judge(host, canonicalIp(address.address) ?? address);
        if (reason) throw new NetworkRefusal(`refused: ${reason}`);
      }
      return { host, addresses };
    },
  };
}
