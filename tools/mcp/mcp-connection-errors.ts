// The errors a call to an MCP server throws: both are transient for the model (a plain Error, not an argument error).
import { formatDuration } from '../../agent/duration-text.js';

/**
 * The server is down (crashed, exited, unreachable, or not started yet) and opsbot is restarting it. The call
 * was not sent, or was cut off by the crash; retrying after the restart may work.
 */
export class McpServerDownError extends Error {
  override readonly name = 'McpServerDownError';
  constructor(
    readonly server: string,
    readonly since: number,
    readonly reason: string,
  ) {
    super(
      `MCP server ${server} is down since ${new Date(since).toISOString()} (${reason}); opsbot is restarting it`,
    );
  }
}

/** The server did not answer a call within its timeout; the call was cancelled and the connection stays up. */
export class McpCallTimeoutError extends Error {
  override readonly name = 'McpCallTimeoutError';
  constructor(
    readonly server: string,
    readonly tool: string,
    readonly timeoutMs: number,
  ) {
    super(
      `MCP server ${server} did not answer ${tool} within ${formatDuration(timeoutMs)}; the call was cancelled`,
    );
  }
}
