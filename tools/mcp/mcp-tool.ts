// One MCP server's tool as an opsbot Tool: named `<server>__<tool>`, its input from the server's JSON Schema, its
// risk as decided, and its calls sent through the server's connection and mapped to `{ ok, summary, data }`.
import { defineExternalTool, type Risk, type Tool, type ToolAvailability } from '../../agent/tool.js';
import type { McpConnection } from './mcp-connection.js';
import { mcpToolResult } from './mcp-result.js';
import type { McpToolDefinition } from './mcp-tool-definition.js';
import { mcpToolInput } from './mcp-tool-input.js';

export interface McpToolOptions {
  server: string;
  /** The registry name, `<server>__<tool>`, already checked by nameMcpTools. */
  name: string;
  /** The definition as listed when the tool was registered: what the model is offered. */
  definition: McpToolDefinition;
  risk: Risk;
  /** The server's `timeout`; limits.tool_timeout caps it. */
  timeoutMs: number;
  connection: Pick<McpConnection, 'call'>;
  /** Off while held back (see McpToolSource): asked before the tool is offered and before each call. */
  availability(): ToolAvailability | undefined;
}

export interface McpTool {
  tool: Tool;
  /** Set when the input schema could not be converted, so the arguments go unchecked to the server. */
  inputProblem?: string;
}

export function createMcpTool(options: McpToolOptions): McpTool {
  const { server, name, definition } = options;
  const input = mcpToolInput(definition.inputSchema);
  const origin = `MCP server ${server}, tool ${definition.name}`;
  const own = definition.description?.trim() ?? '';
  const unchecked =
    input.kind === 'unchecked'
      ? ' Its input schema could not be read: pass the arguments the description names.'
      : '';
  const tool = defineExternalTool({
    name,
    description: `${own === '' ? `The tool ${definition.name}.` : own} (${origin}.)${unchecked}`,
    input: input.input,
    risk: options.risk,
    timeoutMs: options.timeoutMs,
    // The approval card says what will be asked of whom, with the arguments as the server will get them.
    describeCall: (args) => `${origin}: ${JSON.stringify(args)}`,
    availability: options.availability,
    async execute(context, args: Record<string, unknown>) {
      const result = await options.connection.call(definition.name, args, {
        signal: context.signal,
        timeoutMs: context.timeoutMs,
      });
      return mcpToolResult(name, result);
    },
  });
  return input.kind === 'unchecked' ? { tool, inputProblem: input.problem } : { tool };
}
