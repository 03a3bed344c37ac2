// One MCP server as the tool source holds it: its connection, the tools made from its listings, which are held
// back and why, and its pins; with the two steps that touch the outside, reading the pins and making a tool.

import type { Logger } from '../../agent/logger.js';
import type { Tool } from '../../agent/tool.js';
import { readableUtc } from '../../agent/utc-time.js';
import type { McpConnection, McpConnectionState } from './mcp-connection.js';
import type { McpPinRepository } from './mcp-pin-repository.js';
import { type McpServerPins, pinStates } from './mcp-pins.js';
import { mcpToolRisk } from './mcp-risk.js';
import type { McpServerSettings } from './mcp-settings.js';
import { createMcpTool } from './mcp-tool.js';
import type { McpToolDefinition } from './mcp-tool-definition.js';
import { mcpRegistryName } from './mcp-tool-names.js';

export interface MadeTool {
  tool: Tool;
  /** The hash of the listed definition the tool was made from: a new definition makes a new tool. */
  hash: string;
}

export interface McpServerState {
  name: string;
  settings: McpServerSettings;
  connection: McpConnection;
  /** Whether a listing of the server was checked against its pins in this process (first sight is recorded then). */
  seen: boolean;
  /** The tools made from its listings, by their own name; one the server stops listing stays, switched off. */
  made: Map<string, MadeTool>;
  /** Made tools whose name was refused by a later listing (a collision), with why. */
  unnamed: Map<string, string>;
  /** Off tools by their own name, with the refusal; recomputed on every listing and pin refresh. */
  heldBack: Map<string, string>;
  pins: McpServerPins;
  /** Set while the pins cannot be read: every tool of the server is off with it. */
  pinProblem: string | undefined;
  /** The reason last warned about while down; undefined while up. */
  downReason: string | undefined;
  /** The server's pin reads and records, one at a time. */
  work: Promise<void>;
}

/**
 * The pins from the Store, with what is due recorded first: at the first listing every tool of a server never
 * seen, and a new tool under `trust_new_tools`. A pin changed or missing is never recorded here.
 */
export async function readServerPins(
  repository: McpPinRepository,
  server: McpServerState,
  options: { firstSight: boolean; now: number },
): Promise<void> {
  const stored = await repository.find(server.name);
  if (stored.size > 0 || options.firstSight) {
    const check = pinStates(server.name, server.connection.tools(), stored, {
      trustNewTools: server.settings.trust_new_tools,
      now: options.now,
    });
    if (check.toRecord.size > 0) {
      await repository.record(server.name, check.toRecord);
      server.pins = await repository.find(server.name);
      return;
    }
  }
  server.pins = stored;
}

/** The opsbot tool for one listed definition: its risk decided, and off whenever the server holds it back. */
export function makeServerTool(
  server: McpServerState,
  name: string,
  definition: McpToolDefinition,
  warn: (fields: Record<string, unknown>, message: string) => void,
): Tool {
  const { risk } = mcpToolRisk(definition.name, server.settings.tools.risk, definition.annotations);
  const made = createMcpTool({
    server: server.name,
    name,
    definition,
    risk,
    timeoutMs: server.settings.timeout,
    connection: server.connection,
    availability: () => {
      const refusal = server.heldBack.get(definition.name);
      return refusal === undefined ? undefined : { off: refusal };
    },
  });
  if (made.inputProblem !== undefined) {
    warn(
      { tool: name, problem: made.inputProblem },
      `${name}: its input schema cannot be converted; its arguments go to the server unchecked`,
    );
  }
  return made.tool;
}

/**
 * A server going down is warned about once per reason: one that keeps failing the same way (a crash loop, a
 * refused address) is retried quietly; coming back up is said once.
 */
export function serverStateChanged(server: McpServerState, state: McpConnectionState, logger: Logger): void {
  if (state.kind === 'up') {
    if (server.downReason !== undefined)
      logger.info({ server: server.name }, `MCP server ${server.name} is up again`);
    server.downReason = undefined;
    return;
  }
  if (state.reason === 'closed' || state.reason === server.downReason) return;
  server.downReason = state.reason;
  logger.warn(
    { server: server.name, reason: state.reason },
    'MCP server down; trying it again with backoff (said again only if the reason changes)',
  );
}

export interface McpServerStatus {
  server: string;
  /** "up", or "down since 2026-01-01 12:03 UTC (exit 1)". */
  state: string;
  up: boolean;
  /** Registry names of the tools held back, with why. */
  heldBack: Array<{ name: string; refusal: string }>;
}

/** The server's state and held-back tools, for /readyz, the start-up log and `awaitedReason`. */
export function serverStatus(server: McpServerState): McpServerStatus {
  const state = server.connection.state();
  return {
    server: server.name,
    up: state.kind === 'up',
    state: state.kind === 'up' ? 'up' : `down since ${readableUtc(state.since)} (${state.reason})`,
    heldBack: [...server.heldBack].map(([tool, refusal]) => ({
      name: mcpRegistryName(server.name, tool),
      refusal,
    })),
  };
}
