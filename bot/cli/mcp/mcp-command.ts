// `opsbot mcp list|diff|trust`: the configured MCP servers, their tools and pins; what changed since a tool was
// trusted; and accepting it. Each connects to the servers it needs once and leaves them closed.

import { didYouMean } from '../../../agent/did-you-mean.js';
import { CallerError, ErrorCode } from '../../../agent/errors.js';
import type { Principal } from '../../../agent/principal.js';
import { openStore } from '../../../agent/store/open-store.js';
import type { Store } from '../../../agent/store/store.js';
import { needsReview } from '../../../tools/mcp/mcp-tool-review.js';
import type { CliContext } from '../cli-context.js';
import type { CliIo } from '../cli-io.js';
import { EXIT } from '../run-task.js';
import { formatToolDiff, toolDiffJson } from './mcp-diff-view.js';
import { configuredServer, inspectMcpServers, inspectOne } from './mcp-inspection.js';
import { formatMcpList, mcpListJson, standingText } from './mcp-list-view.js';
import { trustCommand } from './mcp-trust-command.js';

export const MCP_USAGE =
  'the mcp command is: opsbot mcp list [--json] | diff <server> [tool] | trust <server> [tool]';

export interface McpCommandOptions {
  json: boolean;
  principal: Principal;
}

export async function mcpCommand(
  context: CliContext,
  io: CliIo,
  args: readonly string[],
  options: McpCommandOptions,
): Promise<number> {
  const [verb, server, tool, ...extra] = args;
  if (verb === 'list') {
    if (server !== undefined)
      throw usageError('mcp list takes no arguments (it lists every configured server)');
  } else if (verb === 'diff' || verb === 'trust') {
    if (server === undefined)
      throw usageError(`mcp ${verb} needs a server: opsbot mcp ${verb} <server> [tool]`);
    if (extra.length > 0) throw usageError(`mcp ${verb} takes a server and at most one tool`);
    configuredServer(context, server);
  } else {
    throw usageError(
      verb === undefined
        ? MCP_USAGE
        : `unknown mcp command "${verb}"${didYouMean(verb, ['list', 'diff', 'trust'])}; ${MCP_USAGE}`,
    );
  }
  const store = await openStore(context.environment.OPSBOT_STORE_URL, { logger: context.logger });
  try {
    if (verb === 'list') return await listCommand(context, io, store, options.json);
    if (verb === 'diff') return await diffCommand(context, io, store, server!, tool, options.json);
    return await trustCommand(context, io, store, { server: server!, tool, principal: options.principal });
  } finally {
    await store.close();
  }
}

function usageError(message: string): CallerError {
  return new CallerError(ErrorCode.InvalidTask, message);
}

/** Exit 0 when every server answered; 1 when one is down (the listing still shows the rest). */
async function listCommand(context: CliContext, io: CliIo, store: Store, json: boolean): Promise<number> {
  const inspection = await inspectMcpServers(context, io.env, store);
  const text = json ? JSON.stringify(mcpListJson(inspection), null, 2) : formatMcpList(inspection);
  io.stdout.write(`${context.redactor.redact(text)}\n`);
  return inspection.servers.some((server) => server.state === 'down') ? EXIT.failed : EXIT.ok;
}

async function diffCommand(
  context: CliContext,
  io: CliIo,
  store: Store,
  server: string,
  tool: string | undefined,
  json: boolean,
): Promise<number> {
  const inspection = await inspectOne(context, io, store, server, tool);
  if (typeof inspection === 'number') return inspection;
  const chosen = inspection.reviews.filter((review) => tool === undefined || review.tool === tool);
  const changed = chosen.filter(needsReview);
  if (json) {
    io.stdout.write(
      `${context.redactor.redact(JSON.stringify({ server, tools: changed.map(toolDiffJson) }, null, 2))}\n`,
    );
    return EXIT.ok;
  }
  if (changed.length === 0) {
    const firstSight = chosen.some((review) => review.standing.kind === 'trusted_when_seen');
    const note = firstSight
      ? ` (no pins yet: opsbot pins them as listed when it connects, or opsbot mcp trust ${server} pins them now)`
      : '';
    const what =
      tool === undefined
        ? `every offered tool of ${server} is trusted as listed`
        : `${chosen[0]!.name} is ${standingText(chosen[0]!.standing)}`;
    io.stdout.write(`Nothing to review: ${what}${note}.\n`);
    return EXIT.ok;
  }
  const sections = changed.map(formatToolDiff);
  const accept = tool === undefined ? `opsbot mcp trust ${server}` : `opsbot mcp trust ${server} ${tool}`;
  sections.push(`To accept ${changed.length === 1 ? 'it' : 'them'} as listed now (admins only): ${accept}`);
  io.stdout.write(`${context.redactor.redact(sections.join('\n\n'))}\n`);
  return EXIT.ok;
}
