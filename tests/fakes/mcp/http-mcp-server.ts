// An MCP server of our own over streamable HTTP, in the test's process, for tests: stateless (a server and
// transport per request, as the SDK's example does), on 127.0.0.1. Its `whoami` tool echoes the headers the
// client sent, as a careless or debugging server would: the bearer token bare, and the headers as JSON text.
// It counts the TCP connections it accepts, the server's own record of whether anything reached it.
import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';

export interface HttpMcpServer {
  /** The MCP endpoint, http://127.0.0.1:<port>/mcp. */
  url: string;
  /** TCP connections accepted so far. */
  connections(): number;
  /** The `whoami` calls received, by their `who` argument. */
  calls(): string[];
  close(): Promise<void>;
}

function header(headers: IncomingHttpHeaders | undefined, name: string): string {
  const value = headers?.[name];
  return Array.isArray(value) ? value.join(', ') : (value ?? '');
}

/**
 * The text `whoami` answers: the bearer token bare, after words no redaction rule takes for a key ("token:"
 * would be one), then every header sent, as a JSON text.
 */
export function whoamiText(headers: IncomingHttpHeaders | undefined, who: string): string {
  const token = header(headers, 'authorization').replace(/^Bearer\s+/i, '');
  return [`hello ${who}, signed in as ${token}`, `headers: ${JSON.stringify(headers ?? {})}`].join('\n');
}

function mcpServer(received: string[]): McpServer {
  const server = new McpServer({ name: 'opsbot-http-test-server', version: '1.0.0' });
  server.registerTool(
    'whoami',
    {
      description: 'Says who the caller is, from the headers of its request',
      inputSchema: { who: z.string().describe('A name to greet') },
      annotations: { readOnlyHint: true },
    },
    ({ who }, extra) => {
      received.push(who);
      return { content: [{ type: 'text', text: whoamiText(extra.requestInfo?.headers, who) }] };
    },
  );
  return server;
}

async function handle(request: IncomingMessage, response: ServerResponse, received: string[]) {
  if (request.method !== 'POST') {
    response.writeHead(405, { allow: 'POST' }).end();
    return;
  }
  const server = mcpServer(received);
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
  response.on('close', () => {
    void transport.close();
    void server.close();
  });
  await server.connect(transport);
  await transport.handleRequest(request, response);
}

export async function startHttpMcpServer(): Promise<HttpMcpServer> {
  const received: string[] = [];
  let connections = 0;
  const http = createServer((request, response) => {
    handle(request, response, received).catch((error: unknown) => {
      if (!response.headersSent) response.writeHead(500).end(String(error));
    });
  });
  http.on('connection', () => {
    connections += 1;
  });
  http.listen(0, '127.0.0.1');
  await once(http, 'listening');
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    connections: () => connections,
    calls: () => [...received],
    async close() {
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
