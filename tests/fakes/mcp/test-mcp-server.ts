// An MCP server of our own over stdio, for tests: its tools come from a JSON file a test can rewrite between runs
// (or while it runs: it then re-registers them, and the SDK sends notifications/tools/list_changed).
// Run: node --import tsx tests/fakes/mcp/test-mcp-server.ts, with MCP_TEST_TOOLS=<path of the JSON file>, and
// MCP_TEST_CALLS=<path> to have every call it receives appended there (one JSON line each): the server's own
// record of what reached it, which a test or an eval judges instead of opsbot's word.
import { appendFileSync, readFileSync, watch } from 'node:fs';
import { McpServer, type RegisteredTool } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';
import { DEFAULT_TEST_TOOLS, type TestCall, ToolFileSchema } from './test-mcp-tools.js';

function readTools(): z.output<typeof ToolFileSchema> {
  const path = process.env.MCP_TEST_TOOLS;
  return ToolFileSchema.parse(path ? JSON.parse(readFileSync(path, 'utf8')) : DEFAULT_TEST_TOOLS);
}

const server = new McpServer({ name: 'opsbot-test-server', version: '1.0.0' });
let registered: RegisteredTool[] = [];

function text(value: string) {
  return { content: [{ type: 'text' as const, text: value }] };
}

/** Written before the call does anything, so a call that crashes or hangs is on the record too. */
function recordCall(tool: string, args: Record<string, unknown>): void {
  const path = process.env.MCP_TEST_CALLS;
  if (path) appendFileSync(path, `${JSON.stringify({ tool, args } satisfies TestCall)}\n`);
}

function register(): void {
  for (const tool of registered) tool.remove();
  registered = readTools().tools.map((tool) => {
    const record = (args: Record<string, unknown> = {}) => recordCall(tool.name, args);
    const meta = {
      description: tool.description,
      ...(tool.annotations ? { annotations: tool.annotations } : {}),
    };
    switch (tool.behaviour) {
      case 'echo':
        return server.registerTool(
          tool.name,
          { ...meta, inputSchema: { text: z.string() } },
          ({ text: said }) => {
            record({ text: said });
            return text(said);
          },
        );
      case 'reply': {
        const inputSchema = Object.fromEntries(
          Object.entries(tool.parameters).map(([name, about]) => [name, z.string().describe(about)]),
        );
        return server.registerTool(tool.name, { ...meta, inputSchema }, (args) => {
          record(args);
          return text(tool.reply);
        });
      }
      case 'crash':
        return server.registerTool(tool.name, meta, () => {
          record();
          process.stderr.write('test-mcp-server: crashing on purpose\n');
          process.exit(1);
        });
      case 'hang':
        return server.registerTool(tool.name, meta, () => {
          record();
          return new Promise<never>(() => undefined);
        });
      case 'big':
        return server.registerTool(
          tool.name,
          { ...meta, inputSchema: { bytes: z.number().int() } },
          ({ bytes }) => {
            record({ bytes });
            return text('x'.repeat(bytes));
          },
        );
      case 'env':
        return server.registerTool(tool.name, meta, () => {
          record();
          return text(JSON.stringify(Object.keys(process.env).sort()));
        });
      default:
        throw new Error(`unknown behaviour ${String(tool.behaviour satisfies never)}`);
    }
  });
}

register();
await server.connect(new StdioServerTransport());
// As a well-behaved stdio server does: the client closing stdin is the end of the session.
process.stdin.on('end', () => process.exit(0));
const path = process.env.MCP_TEST_TOOLS;
if (path) {
  // A test rewrites the file whole; a half-written file fails to parse and the next event reads it again.
  watch(path, () => {
    try {
      register();
    } catch {
      // Not complete yet.
    }
  });
}
