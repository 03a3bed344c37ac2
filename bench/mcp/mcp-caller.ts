// What the MCP bench measures in each runner: one call of the test server's `echo` tool, by whichever path the
// runner takes (the bare SDK, opsbot's tool, a whole opsbot run), checked to have echoed what it was sent.
import { resolve } from 'node:path';

export const MCP_RUNNER_NAMES = [
  'bare-sdk',
  'opsbot-tool',
  'opsbot-run-memory',
  'opsbot-run-sqlite',
] as const;
export type McpRunnerName = (typeof MCP_RUNNER_NAMES)[number];

/** The test server every runner starts, over stdio, the same way: through tsx, its default tools, no call record. */
export const TEST_SERVER_COMMAND: readonly string[] = [
  process.execPath,
  '--import',
  'tsx',
  resolve('tests/fakes/mcp/test-mcp-server.ts'),
];

export interface McpCaller {
  /** One `echo` call with `text`; throws a BrokenRunError when it did not come back as sent. */
  call(text: string): Promise<void>;
  close(): Promise<void>;
}

/** Each runner's caller, loaded only in its own process so no runner carries another's modules. */
export async function startCaller(name: McpRunnerName, concurrency: number): Promise<McpCaller> {
  switch (name) {
    case 'bare-sdk':
      return (await import('./bare-sdk-caller.js')).startBareSdkCaller();
    case 'opsbot-tool':
      return (await import('./opsbot-tool-caller.js')).startOpsbotToolCaller();
    case 'opsbot-run-memory':
      return (await import('./opsbot-run-caller.js')).startOpsbotRunCaller('memory', concurrency);
    case 'opsbot-run-sqlite':
      return (await import('./opsbot-run-caller.js')).startOpsbotRunCaller('sqlite', concurrency);
  }
}
