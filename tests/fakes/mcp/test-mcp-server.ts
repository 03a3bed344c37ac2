// An MCP server of our own over stdio, for tests: its tools come from a JSON file a test can rewrite between runs
// (or while it runs: it then re-registers them, and the SDK sends notifications/tools/list_changed).
// Run: node --import tsx tests/fakes/mcp/test-mcp-server.ts, with MCP_TEST_TOOLS=<path of the JSON file>.
import { readFileSync, watch } from 'node:fs';
import { McpServer, type RegisteredTool } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';

/** What each tool does; its name, description and annotations are the file's to choose. */
const BehaviourSchema = z.enum(['echo', 'crash', 'hang', 'big', 'env']);

const ToolFileSchema = z.object({
  tools: z.array(
    z.object({
      name: z.string(),
      behaviour: BehaviourSchema,
      description: z.string().default(''),
      annotations: z
        .object({ readOnlyHint: z.boolean().optional(), destructiveHint: z.boolean().optional() })
        .optional(),
    }),
  ),
});
export type TestToolFile = z.input<typeof ToolFileSchema>;

/** The set a test gets without a file: one tool of each behaviour, plus a destructive one. */
export const DEFAULT_TEST_TOOLS: TestToolFile = {
  tools: [
    {
      name: 'echo',
      behaviour: 'echo',
      description: 'Answers with its text',
      annotations: { readOnlyHint: true },
    },
    { name: 'crash', behaviour: 'crash', description: 'Exits the server with status 1' },
    { name: 'hang', behaviour: 'hang', description: 'Never answers' },
    { name: 'big', behaviour: 'big', description: 'Answers with `bytes` bytes of text' },
    { name: 'env', behaviour: 'env', description: 'Lists the names in its environment' },
    {
      name: 'drop_table',
      behaviour: 'echo',
      description: 'Deletes a table',
      annotations: { destructiveHint: true },
    },
  ],
};

function readTools(): z.output<typeof ToolFileSchema> {
  const path = process.env.MCP_TEST_TOOLS;
  return ToolFileSchema.parse(path ? JSON.parse(readFileSync(path, 'utf8')) : DEFAULT_TEST_TOOLS);
}

const server = new McpServer({ name: 'opsbot-test-server', version: '1.0.0' });
let registered: RegisteredTool[] = [];

function text(value: string) {
  return { content: [{ type: 'text' as const, text: value }] };
}

function register(): void {
  for (const tool of registered) tool.remove();
  registered = readTools().tools.map((tool) => {
    const meta = {
      description: tool.description,
      ...(tool.annotations ? { annotations: tool.annotations } : {}),
    };
    switch (tool.behaviour) {
      case 'echo':
        return server.registerTool(
          tool.name,
          { ...meta, inputSchema: { text: z.string() } },
          ({ text: said }) => text(said),
        );
      case 'crash':
        return server.registerTool(tool.name, meta, () => {
          process.stderr.write('test-mcp-server: crashing on purpose\n');
          process.exit(1);
        });
      case 'hang':
        return server.registerTool(tool.name, meta, () => new Promise<never>(() => undefined));
      case 'big':
        return server.registerTool(
          tool.name,
          { ...meta, inputSchema: { bytes: z.number().int() } },
          ({ bytes }) => text('x'.repeat(bytes)),
        );
      case 'env':
        return server.registerTool(tool.name, meta, () =>
          text(JSON.stringify(Object.keys(process.env).sort())),
        );
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
