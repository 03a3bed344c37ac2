// Each configured MCP server as the endpoint its connection needs: `${VAR}` header values taken from the
// environment once, at start-up, so a variable that is not set is a settings error naming the server and header.
import { CallerError, ErrorCode, errorMessage } from '../../agent/errors.js';
import { type Environment, expandHeaders } from '../prometheus/endpoint-headers.js';
import type { McpServerEndpoint } from './mcp-endpoint.js';
import type { McpSettings } from './mcp-settings.js';

export function mcpServerEndpoints(settings: McpSettings, environment: Environment): McpServerEndpoint[] {
  return Object.entries(settings.servers).map(([name, server]) => {
    let headers: Record<string, string> = {};
    try {
      headers = expandHeaders(server.headers, environment).headers;
    } catch (error) {
      throw new CallerError(ErrorCode.InvalidSettings, `mcp.servers.${name}.${errorMessage(error)}`, {
        cause: error,
      });
    }
    return {
      name,
      ...(server.command ? { command: server.command } : {}),
      ...(server.url !== undefined ? { url: server.url } : {}),
      env: server.env,
      headers,
      timeoutMs: server.timeout,
    };
  });
}
