// Picks the Store backend from OPSBOT_STORE_URL: SQLite by default, Redis to scale out, memory for throwaway runs.
import type { Clock } from '../clock.js';
import { CallerError, ErrorCode } from '../errors.js';
import type { Logger } from '../logger.js';
import { maskUrlUserinfo } from '../url-userinfo.js';
import { MemoryStore } from './memory-store.js';
import { defaultSqlitePath, SqliteStore } from './sqlite-store.js';
import type { Store } from './store.js';

export const defaultStoreUrl = `sqlite://${defaultSqlitePath}`;

export type StoreLocation =
  | { backend: 'sqlite'; path: string }
  | { backend: 'redis'; url: string }
  | { backend: 'memory' };

export interface OpenStoreOptions {
  /** Time for TTLs and claims in the SQLite and memory backends; Redis keeps its own. */
  clock?: Clock;
  logger?: Logger;
}

const acceptedForms =
  'sqlite://<path> (e.g. sqlite://./data/opsbot.sqlite or sqlite:///var/lib/opsbot/opsbot.sqlite), ' +
  'redis://[user:password@]host:port[/db], rediss://… for TLS, or memory://';

function invalid(url: string, problem: string): CallerError {
  return new CallerError(
    ErrorCode.InvalidSettings,
    `OPSBOT_STORE_URL "${maskUrlUserinfo(url)}" ${problem}; use ${acceptedForms}`,
  );
}

/** Reads a store URL without opening anything, so settings can be checked at start-up. */
export function parseStoreUrl(url: string): StoreLocation {
  const separator = url.indexOf('://');
  if (separator <= 0) throw invalid(url, 'is not a URL with a scheme');
  const scheme = url.slice(0, separator).toLowerCase();
  const rest = url.slice(separator + 3);
  switch (scheme) {
    case 'sqlite':
      // Not parsed with URL(): "./data/x" would become a host name, and relative paths must stay relative.
      if (rest === '') throw invalid(url, 'names no database file');
      return { backend: 'sqlite', path: rest };
    case 'redis':
    case 'rediss': {
      let parsed: URL;
      try {
        parsed = new URL(url);
      } catch {
        throw invalid(url, 'is not a valid Redis URL');
      }
      if (parsed.hostname === '') throw invalid(url, 'names no Redis host');
      return { backend: 'redis', url };
    }
    case 'memory':
      return { backend: 'memory' };
    default:
      throw invalid(url, `has an unknown scheme "${scheme}://"`);
  }
}

export async function openStore(url: string, options: OpenStoreOptions = {}): Promise<Store> {
  const location = parseStoreUrl(url);
  switch (location.backend) {
    case 'sqlite':
      return new SqliteStore(location.path, { clock: options.clock });
    case 'redis': {
      // Loaded only when used: the Redis client costs start-up time a SQLite deployment should not pay.
      const { RedisStore } = await import('./redis-store.js');
      return RedisStore.connect(location.url, { logger: options.logger });
    }
    case 'memory':
      return new MemoryStore(options.clock);
  }
}
