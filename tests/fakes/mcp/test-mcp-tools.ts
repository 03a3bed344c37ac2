// The test MCP server's side that tests and evals share without starting it: the JSON file its tools come from
// (MCP_TEST_TOOLS), and the record of the calls it received (MCP_TEST_CALLS). The server is test-mcp-server.ts.
import { readFileSync } from 'node:fs';
import { z } from 'zod';

/**
 * What each tool does; its name, description and annotations are the file's to choose. `reply` answers with the
 * tool's `reply` text whatever it is asked, taking the string arguments `parameters` names (a fake of a real
 * server's tool: pods listed, a pod deleted).
 */
export const BehaviourSchema = z.enum(['echo', 'crash', 'hang', 'big', 'env', 'reply']);

export const ToolFileSchema = z.object({
  tools: z.array(
    z.object({
      name: z.string(),
      behaviour: BehaviourSchema,
      description: z.string().default(''),
      /** For `reply`: the text it answers with. */
      reply: z.string().default(''),
      /** For `reply`: its arguments, all strings and required, by name with their descriptions. */
      parameters: z.record(z.string(), z.string()).default({}),
      annotations: z
        .object({ readOnlyHint: z.boolean().optional(), destructiveHint: z.boolean().optional() })
        .optional(),
    }),
  ),
});
export type TestToolFile = z.input<typeof ToolFileSchema>;

/** One line of the MCP_TEST_CALLS file: a call as the server received it. */
export const TestCallSchema = z.object({ tool: z.string(), args: z.record(z.string(), z.unknown()) });
export type TestCall = z.infer<typeof TestCallSchema>;

/** The calls recorded in an MCP_TEST_CALLS file, in order; none when it was never written. */
export function readTestCalls(path: string): TestCall[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return [];
  }
  return text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => TestCallSchema.parse(JSON.parse(line)));
}

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
