// A configured MCP server's settings as the endpoint a connection needs: its `${NAME}` header values taken from the
// environment, so a missing variable is said once, naming the server, before anything is started.
import { type Environment, expandHeaders } from '../prometheus/endpoint-headers.js';
import type { McpServerEndpoint } from './mcp-endpoint.js';
import type { McpServerSettings } from './mcp-settings.js';

/** Throws naming the server and the header when a variable a header needs is not set. */
export function mcpEndpointOf(
  name: string,
  settings: McpServerSettings,
  environment: Environment,
): McpServerEndpoint {
  let headers: Record<string, string>;
  try {
    headers = expandHeaders(settings.headers, environment).headers;
  } catch (error) {
    throw new Error(`mcp.servers.${name}.${error instanceof Error ? error.message : String(error)}`);
  }
  return {
    name,
    ...(settings.command ? { command: settings.command } : {}),
    ...(settings.url !== undefined ? { url: settings.url } : {}),
    env: settings.env,
    headers,
    timeoutMs: settings.timeout,
  };
}
