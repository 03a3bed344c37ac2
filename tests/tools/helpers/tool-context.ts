// A ToolContext for calling tools directly in tests, and a runner that validates input as the kernel does.
import { silentLogger } from '../../../agent/logger.js';
import type { Tool, ToolContext, ToolResult } from '../../../agent/tool.js';

export function testContext(overrides: Partial<ToolContext> = {}): ToolContext {
  return {
    signal: new AbortController().signal,
    deadline: Date.now() + 60_000,
    timeoutMs: 60_000,
    logger: silentLogger,
    principal: { platform: 'cli', userId: 'tester', displayName: 'Tester', roles: ['admin'], groups: [] },
    conversation: { platform: 'cli', channelId: 'test' },
    runId: 'run-test',
    ...overrides,
  };
}

/** Parses `input` with the tool's schema (throws on invalid input, as the kernel refuses it) and runs the tool. */
export async function callTool(
  tool: Tool,
  input: unknown,
  context: ToolContext = testContext(),
): Promise<ToolResult> {
  return tool.execute(context, tool.input.parse(input));
}

/** The tool's `data` as a plain record, for assertions. */
export function dataOf(result: ToolResult): Record<string, unknown> {
  return (result.data ?? {}) as Record<string, unknown>;
}
