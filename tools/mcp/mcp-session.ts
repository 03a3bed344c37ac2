// One start of an MCP server: its transport opened (a stdio child, or streamable HTTP through the network guard)
// and the client initialized. The connection (mcp-connection.ts) owns the sessions, one generation each.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { errorMessage } from '../../agent/errors.js';
import type { NetworkGuard } from '../network-guard.js';
import type { McpServerEndpoint } from './mcp-endpoint.js';
import { createMcpHttpTransport } from './mcp-http-transport.js';
import { McpStdioTransport } from './mcp-stdio-transport.js';

export interface McpSession {
  client: Client;
  generation: number;
  release(): Promise<void>;
  /** stdio: what the child wrote to stderr last. */
  stderrTail(): string;
}

/** What the session tells its connection; each is bound to the session's generation by the caller. */
export interface McpSessionEvents {
  /** The session ended (the child exited, the connection closed), with why. */
  onClose(reason: string): void;
  /** The server sent notifications/tools/list_changed. */
  onToolListChanged(): void;
  /** A stdio start failed: the end of what the child wrote to stderr. */
  onFailedStart(stderrTail: string): void;
}

export interface OpenMcpSessionOptions {
  endpoint: McpServerEndpoint;
  generation: number;
  /** Required for a `url` server: its host is checked before anything is sent. */
  guard: NetworkGuard | undefined;
  /** Where the stdio child's pass-through variables are read. */
  parentEnvironment: NodeJS.ProcessEnv;
  events: McpSessionEvents;
}

const CLIENT_INFO = { name: 'opsbot', version: '1' };

/** A started, initialized client; on failure everything it started is stopped and the error names why. */
export async function openMcpSession(options: OpenMcpSessionOptions): Promise<McpSession> {
  const { endpoint } = options;
  if (endpoint.command) return openStdio(options, endpoint.command);
  if (endpoint.url !== undefined) return openHttp(options, endpoint.url);
  throw new Error('an MCP server needs a command or a url');
}

async function openHttp(options: OpenMcpSessionOptions, url: string): Promise<McpSession> {
  const { endpoint, generation, events } = options;
  if (!options.guard) throw new Error('an MCP server with a url needs the network guard');
  const client = new Client(CLIENT_INFO, { capabilities: {} });
  const http = await createMcpHttpTransport({ url, headers: endpoint.headers, guard: options.guard });
  const release = async () => {
    await client.close().catch(() => undefined);
    await http.release().catch(() => undefined);
  };
  try {
    await client.connect(http.transport, { timeout: endpoint.timeoutMs });
  } catch (error) {
    await release();
    throw error;
  }
  client.onclose = () => events.onClose('the connection closed');
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => events.onToolListChanged());
  return { client, generation, release, stderrTail: () => '' };
}

async function openStdio(options: OpenMcpSessionOptions, command: readonly string[]): Promise<McpSession> {
  const { endpoint, generation, events } = options;
  const client = new Client(CLIENT_INFO, { capabilities: {} });
  const stdio = new McpStdioTransport({
    server: endpoint.name,
    command,
    env: endpoint.env,
    parentEnvironment: options.parentEnvironment,
  });
  const release = () => client.close();
  client.onclose = () => events.onClose(stdio.exitReason ?? 'the server closed its output');
  try {
    await client.connect(stdio, { timeout: endpoint.timeoutMs });
  } catch (error) {
    client.onclose = undefined;
    const reason = stdio.exitReason ?? errorMessage(error);
    events.onFailedStart(stdio.stderrTail);
    await release().catch(() => undefined);
    throw new Error(reason);
  }
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => events.onToolListChanged());
  return { client, generation, release, stderrTail: () => stdio.stderrTail };
}
