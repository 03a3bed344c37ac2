// The MCP section of `opsbot config check`: every configured server connected once (as `opsbot mcp list` does,
// through inspectMcpServers, which records no pin), its state, and per tool its risk, where that came from and
// its pin. Everything here is a warning at most: the bot starts with a server down, without that server's tools.

import { didYouMean } from '../../../agent/did-you-mean.js';
import type { Store } from '../../../agent/store/store.js';
import type { CliContext } from '../cli-context.js';
import { green, yellow } from '../terminal-output.js';
import { inspectMcpServers, type McpInspection, type McpServerStatus } from './mcp-inspection.js';
import { cell, toolTable } from './mcp-list-view.js';

/** The section's lines; none when `mcp.servers` names no server. `store` is undefined when it cannot be read. */
export async function mcpConfigCheckLines(
  context: CliContext,
  env: NodeJS.ProcessEnv,
  store: Store | undefined,
): Promise<string[]> {
  if (Object.keys(context.loaded.settings.mcp.servers).length === 0) return [];
  const inspection = await inspectMcpServers(context, env, store);
  const lines = inspection.servers.flatMap((server) => serverLines(context, inspection, server));
  if (!inspection.pinsRead) {
    lines.push(
      yellow(
        '⚠ MCP pins: unknown (store not opened); opsbot mcp list shows them once the store is reachable',
      ),
    );
  }
  return lines;
}

function serverLines(context: CliContext, inspection: McpInspection, server: McpServerStatus): string[] {
  if (server.state === 'down') {
    return [
      yellow(
        `⚠ MCP server ${server.name} is down: ${cell(server.reason, 300)}. opsbot would still start, without ` +
          `its tools until the server answers (it is tried again with backoff). Fix mcp.servers.${server.name} (its command or url, env, timeout) ` +
          `or start the server, then run opsbot config check again`,
      ),
    ];
  }
  const reviews = inspection.reviews.filter((review) => review.server === server.name);
  const count = `${reviews.length} ${reviews.length === 1 ? 'tool' : 'tools'}`;
  const lines = [green(`✔ MCP server ${server.name}: up, ${count}`)];
  lines.push(...(reviews.length > 0 ? toolTable(reviews, inspection.pinsRead, 4) : ['    (lists no tools)']));
  const held = reviews.filter(
    (review) => review.standing.kind === 'changed' || review.standing.kind === 'new',
  );
  if (inspection.pinsRead && held.length > 0) {
    lines.push(
      yellow(
        `⚠ MCP server ${server.name}: ${held.length} ${held.length === 1 ? 'tool' : 'tools'} held back until ` +
          `an admin trusts them: opsbot mcp diff ${server.name}`,
      ),
    );
  }
  lines.push(
    ...strayRiskKeys(
      context,
      server.name,
      reviews.map((review) => review.tool),
    ),
  );
  return lines;
}

/** A `tools.risk` key naming a tool the server does not list: a typo would leave the real tool at its default. */
function strayRiskKeys(context: CliContext, server: string, listed: readonly string[]): string[] {
  const risk = context.loaded.settings.mcp.servers[server]!.tools.risk;
  return Object.keys(risk)
    .filter((tool) => !listed.includes(tool))
    .map((tool) =>
      yellow(
        `⚠ mcp.servers.${server}.tools.risk names "${cell(tool)}", which ${server} does not list` +
          `${didYouMean(tool, listed)}; it lists: ${listed.map((name) => cell(name)).join(', ') || 'no tools'}`,
      ),
    );
}
