// Start-up of the MCP tool source from the settings: undefined when no server is configured, else started.
import type { Clock } from '../../agent/clock.js';
import { CallerError, ErrorCode, errorMessage } from '../../agent/errors.js';
import type { Logger } from '../../agent/logger.js';
import type { Store } from '../../agent/store/store.js';
import type { Timers } from '../../agent/timers.js';
import { createNetworkGuard, type Resolve } from '../network-guard.js';
import type { Environment } from '../prometheus/endpoint-headers.js';
import type { ToolSettings } from '../tool-settings-schema.js';
import { mcpServerEndpoints } from './mcp-server-endpoints.js';
import type { McpSettings } from './mcp-settings.js';
import { McpToolSource } from './mcp-tool-source.js';

export { McpToolSource };

export interface StartMcpToolsOptions {
  store: Store;
  logger: Logger;
  takenNames: readonly string[];
  /** Where `${VAR}` in headers and the stdio servers' pass-through variables are read; process.env when absent. */
  environment?: Environment;
  resolve?: Resolve;
  clock?: Clock;
  timers?: Timers;
  pinRefreshMs?: number;
}

export async function startMcpTools(
  settings: { mcp: McpSettings; tools: Pick<ToolSettings, 'network'> },
  options: StartMcpToolsOptions,
): Promise<McpToolSource | undefined> {
  if (Object.keys(settings.mcp.servers).length === 0) return undefined;
  const environment = options.environment ?? process.env;
  let guard: ReturnType<typeof createNetworkGuard>;
  try {
    guard = createNetworkGuard(settings.tools.network, options.resolve ? { resolve: options.resolve } : {});
  } catch (error) {
    throw new CallerError(ErrorCode.InvalidSettings, `tools.network: ${errorMessage(error)}`, {
      cause: error,
    });
  }
  const source = new McpToolSource({
    settings: settings.mcp,
    endpoints: mcpServerEndpoints(settings.mcp, environment),
    store: options.store,
    logger: options.logger,
    takenNames: options.takenNames,
    guard,
    parentEnvironment: environment as NodeJS.ProcessEnv,
    ...(options.clock ? { clock: options.clock } : {}),
    ...(options.timers ? { timers: options.timers } : {}),
    ...(options.pinRefreshMs !== undefined ? { pinRefreshMs: options.pinRefreshMs } : {}),
  });
  await source.start();
  return source;
}
