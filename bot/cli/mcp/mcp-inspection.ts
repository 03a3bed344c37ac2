// What `opsbot mcp list|diff|trust` look at: every configured MCP server connected once (each within its own
// timeout), its tools listed and closed again, beside the pins the Store holds, reviewed as start-up would.
import { BUILTIN_TOOLS } from '../../../agent/builtin-tools.js';
import { systemClock } from '../../../agent/clock.js';
import { didYouMean } from '../../../agent/did-you-mean.js';
import { CallerError, ErrorCode, errorMessage } from '../../../agent/errors.js';
import type { Store } from '../../../agent/store/store.js';
import { createOpsTools } from '../../../tools/index.js';
import { McpConnection, type RejectedTool } from '../../../tools/mcp/mcp-connection.js';
import { McpPinRepository } from '../../../tools/mcp/mcp-pin-repository.js';
import type { McpServerSettings } from '../../../tools/mcp/mcp-settings.js';
import { mcpEndpointOf } from '../../../tools/mcp/mcp-settings-endpoint.js';
import type { McpToolDefinition } from '../../../tools/mcp/mcp-tool-definition.js';
import { type McpToolReview, reviewMcpTools } from '../../../tools/mcp/mcp-tool-review.js';
import { createNetworkGuard } from '../../../tools/network-guard.js';
import type { CliContext } from '../cli-context.js';
import type { CliIo } from '../cli-io.js';
import { EXIT } from '../run-task.js';

export type McpServerStatus =
  | { name: string; state: 'up'; tools: readonly McpToolDefinition[] }
  | { name: string; state: 'down'; since: number; reason: string };

export interface McpInspection {
  servers: McpServerStatus[];
  /** The tools of the servers that answered, in the order of the settings. */
  reviews: McpToolReview[];
  /** False when no Store was given: the pins were not read, and each tool's pin state is unknown. */
  pinsRead: boolean;
}

/** The server's settings, or a CallerError naming them (with a did-you-mean) when `wanted` is not one. */
export function configuredServer(context: CliContext, wanted: string): McpServerSettings {
  const servers = context.loaded.settings.mcp.servers;
  if (Object.hasOwn(servers, wanted)) return servers[wanted]!;
  const names = Object.keys(servers);
  throw new CallerError(
    ErrorCode.InvalidTool,
    `there is no MCP server "${wanted}"${didYouMean(wanted, names)} in ${context.loaded.path}; ` +
      (names.length > 0 ? `configured: ${names.join(', ')}` : 'no MCP servers are configured (mcp.servers)'),
  );
}

/**
 * Connects to every configured server at once (or only `only`), and closes each again: a command looks and
 * leaves, and never restarts a server that is down, nor records a pin. Names are decided across all servers
 * even when only one is shown, as a collision with another server refuses a name. Without a Store (`config
 * check` when it cannot reach it) the tools are reviewed as if unpinned, and `pinsRead` says so.
 */
export async function inspectMcpServers(
  context: CliContext,
  env: NodeJS.ProcessEnv,
  store: Store | undefined,
  only?: string,
): Promise<McpInspection> {
  const { settings } = context.loaded;
  const configured = Object.entries(settings.mcp.servers);
  const guard = createNetworkGuard(settings.tools.network);
  const statuses = await Promise.all(
    configured.map(([name, server]) => listServer(name, server, env, guard)),
  );
  const repository = store ? new McpPinRepository(store, systemClock) : undefined;
  const listed = [];
  for (const [index, status] of statuses.entries()) {
    if (status.state !== 'up') continue;
    const [name, server] = configured[index]!;
    listed.push({
      server: name,
      settings: server,
      tools: status.tools,
      rejected: status.rejected,
      pins: repository ? await repository.find(name) : new Map(),
    });
  }
  const reviews = reviewMcpTools(listed, await builtInToolNames(context), systemClock.now());
  const servers = statuses.map(({ rejected: _rejected, ...status }) => status as McpServerStatus);
  const pinsRead = repository !== undefined;
  return only === undefined
    ? { servers, reviews, pinsRead }
    : {
        servers: servers.filter((server) => server.name === only),
        reviews: reviews.filter((review) => review.server === only),
        pinsRead,
      };
}

type ListedStatus = McpServerStatus & { rejected: readonly RejectedTool[] };

async function listServer(
  name: string,
  server: McpServerSettings,
  env: NodeJS.ProcessEnv,
  guard: ReturnType<typeof createNetworkGuard>,
): Promise<ListedStatus> {
  let connection: McpConnection;
  try {
    connection = new McpConnection({
      endpoint: mcpEndpointOf(name, server, env),
      guard,
      parentEnvironment: env,
    });
  } catch (error) {
    return { name, state: 'down', since: systemClock.now(), reason: errorMessage(error), rejected: [] };
  }
  try {
    await connection.connect();
    const state = connection.state();
    if (state.kind === 'up') {
      return { name, state: 'up', tools: connection.tools(), rejected: connection.rejectedTools() };
    }
    const stderr = lastLine(connection.stderrTail());
    const reason = stderr ? `${state.reason}; its stderr ended: ${stderr}` : state.reason;
    return { name, state: 'down', since: state.since, reason, rejected: [] };
  } finally {
    await connection.close();
  }
}

function lastLine(text: string): string {
  const lines = text.trim().split('\n');
  const last = lines.at(-1)?.trim() ?? '';
  return last.length > 200 ? `${last.slice(0, 199)}…` : last;
}

/** The names an MCP tool may not take: opsbot's own tools, the commands and custom tools, ask_user and finish. */
async function builtInToolNames(context: CliContext): Promise<string[]> {
  const tools = await createOpsTools(context.loaded.settings.tools, { logger: context.logger });
  return [...tools.map((tool) => tool.name), ...BUILTIN_TOOLS.map((tool) => tool.name)];
}

/** The server's reviews, or the one-line reason it has none: down, or no such tool. */
export async function inspectOne(
  context: CliContext,
  io: CliIo,
  store: Store,
  server: string,
  tool: string | undefined,
): Promise<McpInspection | number> {
  const inspection = await inspectMcpServers(context, io.env, store, server);
  const status = inspection.servers[0];
  if (status?.state === 'down') {
    io.stderr.write(`opsbot: MCP server ${server} is down: ${context.redactor.redact(status.reason)}\n`);
    return EXIT.failed;
  }
  if (tool !== undefined && !inspection.reviews.some((review) => review.tool === tool)) {
    const tools = inspection.reviews.map((review) => review.tool);
    throw new CallerError(
      ErrorCode.InvalidTool,
      `MCP server ${server} lists no tool "${tool}"${didYouMean(tool, tools)}; ` +
        (tools.length > 0 ? `it lists: ${tools.join(', ')}` : 'it lists no tools'),
    );
  }
  return inspection;
}
