// The dns_lookup tool: one record type for one name, from the configured resolvers or the system's.
import { Resolver } from 'node:dns/promises';
import { z } from 'zod';
import { defineTool, type Tool } from '../agent/tool.js';
import { abortText, errorCode, errorText, timeoutField, withCallLimits } from './call-limits.js';

const DEFAULT_TIMEOUT_MS = 5_000;
const MAX_TIMEOUT_MS = 30_000;
const RECORD_TYPES = ['A', 'AAAA', 'CNAME', 'MX', 'TXT', 'NS', 'SRV'] as const;
type RecordType = (typeof RECORD_TYPES)[number];
type RecordRow = Record<string, string | number>;

const input = z
  .object({
    name: z
      .string()
      .min(1)
      .max(253)
      .regex(
        /^[A-Za-z0-9_]([A-Za-z0-9_-]*[A-Za-z0-9_])?(\.[A-Za-z0-9_]([A-Za-z0-9_-]*[A-Za-z0-9_])?)*\.?$/,
        'a DNS name',
      )
      .describe('The DNS name, e.g. "api.example.com" or "_https._tcp.example.com" for SRV.'),
    type: z.enum(RECORD_TYPES).default('A').describe('Record type: A, AAAA, CNAME, MX, TXT, NS or SRV.'),
    timeout_ms: timeoutField(DEFAULT_TIMEOUT_MS, MAX_TIMEOUT_MS),
  })
  .strict();

const description = `Looks up DNS records of one type (A, AAAA, CNAME, MX, TXT, NS or SRV) for a name, using the resolvers opsbot is configured with (or the system's), and returns them as rows.
Result data: name, type, servers, records (A/AAAA: {address, ttl}; CNAME: {target}; MX: {priority, exchange}; TXT: {text}; NS: {host}; SRV: {priority, weight, port, target}), error_code (ENOTFOUND, ENODATA, ETIMEOUT, ...).
Use this when you need to know what a name resolves to: a failover that should have moved a record, a mail or service record, a domain verification TXT record.
Do not use it to check whether the service behind a name works (use http_check or tcp_check), or for reverse lookups of IP addresses (not supported).`;

async function query(resolver: Resolver, name: string, type: RecordType): Promise<RecordRow[]> {
  switch (type) {
    case 'A':
      return (await resolver.resolve4(name, { ttl: true })).map((record) => ({ ...record }));
    case 'AAAA':
      return (await resolver.resolve6(name, { ttl: true })).map((record) => ({ ...record }));
    case 'CNAME':
      return (await resolver.resolveCname(name)).map((target) => ({ target }));
    case 'MX':
      return (await resolver.resolveMx(name))
        .sort((a, b) => a.priority - b.priority)
        .map((record) => ({ priority: record.priority, exchange: record.exchange }));
    case 'TXT':
      return (await resolver.resolveTxt(name)).map((chunks) => ({ text: chunks.join('') }));
    case 'NS':
      return (await resolver.resolveNs(name)).map((host) => ({ host }));
    case 'SRV':
      return (await resolver.resolveSrv(name))
        .sort((a, b) => a.priority - b.priority || b.weight - a.weight)
        .map((record) => ({
          priority: record.priority,
          weight: record.weight,
          port: record.port,
          target: record.name,
        }));
  }
}

function shown(type: RecordType, row: RecordRow): string {
  switch (type) {
    case 'A':
    case 'AAAA':
      return String(row.address);
    case 'MX':
      return `${row.priority} ${row.exchange}`;
    case 'SRV':
      return `${row.priority} ${row.weight} ${row.port} ${row.target}`;
    case 'TXT':
      return JSON.stringify(row.text);
    default:
      return String(row.target ?? row.host);
  }
}

/** `servers` are "host" or "host:port" ("[::1]:53" for IPv6); empty means the system's resolvers. */
export function createDnsLookupTool(options: { servers: string[] }): Tool {
  // setServers throws on a malformed entry; doing it once here makes that a start-up error.
  if (options.servers.length > 0) new Resolver().setServers(options.servers);
  return defineTool({
    name: 'dns_lookup',
    description,
    input,
    risk: 'read',
    timeoutMs: MAX_TIMEOUT_MS,
    execute(ctx, args) {
      return withCallLimits(ctx, args.timeout_ms, DEFAULT_TIMEOUT_MS, async (limits) => {
        const tries = 2;
        const resolver = new Resolver({
          timeout: Math.max(50, Math.floor(limits.remainingMs() / tries)),
          tries,
        });
        if (options.servers.length > 0) resolver.setServers(options.servers);
        const servers = resolver.getServers();
        const onAbort = () => resolver.cancel();
        limits.signal.addEventListener('abort', onAbort, { once: true });
        const name = args.name.replace(/\.$/, '');
        try {
          const records = await query(resolver, name, args.type);
          const list = records
            .slice(0, 5)
            .map((row) => shown(args.type, row))
            .join(', ');
          return {
            ok: records.length > 0,
            summary: `${name} has ${records.length} ${args.type} record${records.length === 1 ? '' : 's'}${records.length > 0 ? `: ${list}${records.length > 5 ? ', …' : ''}` : ''}.`,
            data: { name, type: args.type, servers, records, error_code: null },
          };
        } catch (error) {
          const code = limits.signal.aborted
            ? limits.cancelledByCaller()
              ? 'ECANCELLED'
              : 'ETIMEOUT'
            : errorCode(error);
          const why =
            code === 'ENOTFOUND'
              ? 'the name does not exist'
              : code === 'ENODATA'
                ? `the name has no ${args.type} records`
                : limits.signal.aborted
                  ? abortText(limits)
                  : errorText(error);
          return {
            ok: false,
            summary: `No ${args.type} records for ${name}: ${why}.`,
            data: { name, type: args.type, servers, records: [], error_code: code ?? null },
          };
        } finally {
          limits.signal.removeEventListener('abort', onAbort);
        }
      });
    },
  });
}
