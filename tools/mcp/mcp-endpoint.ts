// Where one MCP server is and how to reach it: the part of its settings a connection needs.

/**
 * One configured MCP server, already checked and with its header values expanded. The settings schema
 * (mcp-settings.ts) produces a superset of this; the connection needs no more.
 */
export interface McpServerEndpoint {
  /** The server's name in the settings, `[a-z0-9_-]+`; it prefixes its tools' names and every message. */
  name: string;
  /** stdio: the program and its arguments, run without a shell. Exactly one of `command` and `url`. */
  command?: readonly string[];
  /** stdio: the child-environment allow-list (`NAME` passes opsbot's value, `NAME=value` sets it). */
  env: readonly string[];
  /** Streamable HTTP: the server's endpoint. */
  url?: string;
  /** Streamable HTTP: sent with every request, values already taken from the environment. */
  headers: Readonly<Record<string, string>>;
  /** The most one request (initialize, tools/list, tools/call) may take. */
  timeoutMs: number;
}
