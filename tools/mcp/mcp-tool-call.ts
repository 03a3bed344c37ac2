// One call of an MCP server's tool with its time limit: the call cancelled when the limit or the caller's signal
// ends it, and the SDK's errors for either turned into the one that says why.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  type CallToolResult,
  CallToolResultSchema,
  ErrorCode,
  McpError,
} from '@modelcontextprotocol/sdk/types.js';
import type { Timers } from '../../agent/timers.js';
import { McpCallTimeoutError } from './mcp-connection-errors.js';

export interface McpToolCallOptions {
  server: string;
  timeoutMs: number;
  timers: Timers;
  signal?: AbortSignal;
  /**
   * What to throw for an error that is neither the time limit nor the caller's abort: the connection decides
   * whether it means the server is gone.
   */
  otherError: (error: unknown) => unknown;
}

export async function callMcpTool(
  client: Client,
  name: string,
  args: Record<string, unknown>,
  options: McpToolCallOptions,
): Promise<CallToolResult> {
  const { timeoutMs, signal } = options;
  // Made only when the limit is reached: an error's stack costs more than most calls (measured by bench mcp).
  let timeout: McpCallTimeoutError | undefined;
  const timedOut = () => {
    timeout ??= new McpCallTimeoutError(options.server, name, timeoutMs);
    return timeout;
  };
  const controller = new AbortController();
  const timer = options.timers.setTimeout(() => controller.abort(timedOut()), timeoutMs);
  const forward = () => controller.abort(signal?.reason);
  if (signal?.aborted) forward();
  signal?.addEventListener('abort', forward, { once: true });
  try {
    const result = await client.callTool({ name, arguments: args }, CallToolResultSchema, {
      signal: controller.signal,
      timeout: timeoutMs,
    });
    return CallToolResultSchema.parse(result);
  } catch (error) {
    if (timeout !== undefined && controller.signal.reason === timeout) throw timeout;
    // The SDK wraps any abort reason in an McpError "RequestTimeout": the caller's own reason says more.
    if (signal?.aborted) throw signal.reason ?? error;
    if (error instanceof McpError && error.code === ErrorCode.RequestTimeout) throw timedOut();
    throw options.otherError(error);
  } finally {
    options.timers.clearTimeout(timer);
    signal?.removeEventListener('abort', forward);
  }
}
