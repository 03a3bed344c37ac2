// The streamable HTTP transport for one MCP server: its host checked by the network guard before anything is
// sent, every request pinned to the addresses the guard approved, and the configured headers on each.
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import { Agent, fetch as undiciFetch } from 'undici';
import { pinnedLookup } from '../http-request.js';
import { type NetworkGuard, NetworkRefusal } from '../network-guard.js';

export interface McpHttpOptions {
  url: string;
  headers: Readonly<Record<string, string>>;
  guard: NetworkGuard;
  signal?: AbortSignal;
}

export interface McpHttpTransport {
  transport: StreamableHTTPClientTransport;
  /** Closes the transport's connections; call after the client is closed. */
  release(): Promise<void>;
}

/**
 * Throws NetworkRefusal when the guard refuses the URL's host, before a single byte goes out. The connections
 * then use only the checked addresses: a second DNS answer cannot move them elsewhere, and the transport may
 * not leave the host (its redirect policy keeps to the origin; this fetch refuses any other host outright).
 */
export async function createMcpHttpTransport(options: McpHttpOptions): Promise<McpHttpTransport> {
  const url = new URL(options.url);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new NetworkRefusal(`${url.protocol} is not http: or https:`);
  }
  const checked = await options.guard.check(url.hostname, options.signal);
  const address = checked.addresses[0];
  if (!address) throw new NetworkRefusal(`${url.hostname} did not resolve to any address`);
  const dispatcher = new Agent({ connect: { lookup: pinnedLookup(address) } });
  const pinnedFetch: FetchLike = async (target, init) => {
    const requested = new URL(target);
    if (requested.hostname !== url.hostname) {
      throw new NetworkRefusal(
        `the MCP server at ${url.host} sent opsbot to another host, ${requested.host}`,
      );
    }
    // undici's fetch is the one Node's global fetch is built on; its types differ only in name.
    const response = await undiciFetch(requested, { ...(init as object), dispatcher });
    return response as unknown as Response;
  };
  const transport = new StreamableHTTPClientTransport(url, {
    requestInit: { headers: { ...options.headers } },
    fetch: pinnedFetch,
  });
  return { transport, release: () => dispatcher.close() };
}
