// Where each listed MCP tool stands: its registry name, its risk and where that came from, and whether it is
// offered (trusted), held back (changed, new) or not offered at all (left out by globs, a refused name, a
// definition that does not parse). Pure, so `opsbot mcp list`, `diff` and `trust` read one answer.
import type { RejectedTool } from './mcp-connection.js';
import {
  FIRST_SIGHT,
  type McpPinField,
  type McpServerPins,
  type McpToolPin,
  pinStates,
  TRUST_NEW_TOOLS,
} from './mcp-pins.js';
import { type McpRisk, mcpToolRisk } from './mcp-risk.js';
import type { McpServerSettings } from './mcp-settings.js';
import type { McpToolDefinition } from './mcp-tool-definition.js';
import { mcpRegistryName, nameMcpTools } from './mcp-tool-names.js';

/** One server as it answered: its settings, what it listed, and the pins the Store holds for it. */
export interface ListedMcpServer {
  server: string;
  settings: McpServerSettings;
  tools: readonly McpToolDefinition[];
  rejected: readonly RejectedTool[];
  pins: McpServerPins;
}

export type McpToolStanding =
  /** Pinned, and listed as pinned. */
  | { kind: 'trusted'; by: string; at: number }
  /** Not pinned yet, and offered as listed when opsbot connects: the server's first sight, or `trust_new_tools`. */
  | { kind: 'trusted_when_seen'; by: typeof FIRST_SIGHT | typeof TRUST_NEW_TOOLS }
  | { kind: 'changed'; fields: McpPinField[]; refusal: string }
  | { kind: 'new'; refusal: string }
  | { kind: 'left_out' }
  | { kind: 'refused_name'; message: string }
  | { kind: 'refused_definition'; problem: string };

export interface McpToolReview {
  server: string;
  /** The tool's own name on its server. */
  tool: string;
  /** `<server>__<tool>`, even for a tool that is not offered. */
  name: string;
  /** Undefined only for a definition that does not parse (its annotations cannot be read). */
  risk: McpRisk | undefined;
  standing: McpToolStanding;
  /** As listed now; undefined for a refused definition. */
  definition: McpToolDefinition | undefined;
  /** As trusted; undefined when the tool has no pin. */
  pin: McpToolPin | undefined;
}

/** Whether an admin has something to look at: a changed or a new tool. */
export function needsReview(review: McpToolReview): boolean {
  return review.standing.kind === 'changed' || review.standing.kind === 'new';
}

/**
 * Every listed tool of every server, in the order the servers and their tools came. Names are decided across
 * all servers at once, as at start-up, so a collision between two servers shows on both.
 */
export function reviewMcpTools(
  servers: readonly ListedMcpServer[],
  builtInNames: readonly string[],
  now: number,
): McpToolReview[] {
  const naming = nameMcpTools(
    servers.map((listed) => ({
      server: listed.server,
      tools: listed.tools.map((tool) => tool.name),
      include: listed.settings.tools.include,
      exclude: listed.settings.tools.exclude,
    })),
    builtInNames,
  );
  const key = (server: string, tool: string) => JSON.stringify([server, tool]);
  const refusedNames = new Map(naming.refused.map((refused) => [key(refused.server, refused.tool), refused]));
  const leftOut = new Set(naming.filtered.map((filtered) => key(filtered.server, filtered.tool)));

  const reviews: McpToolReview[] = [];
  for (const listed of servers) {
    const offered = listed.tools.filter(
      (tool) =>
        !leftOut.has(key(listed.server, tool.name)) && !refusedNames.has(key(listed.server, tool.name)),
    );
    const check = pinStates(listed.server, offered, listed.pins, {
      trustNewTools: listed.settings.trust_new_tools,
      now,
    });
    const states = new Map(check.states.map((state) => [state.tool, state]));
    for (const definition of listed.tools) {
      const pin = listed.pins.get(definition.name);
      const refusedName = refusedNames.get(key(listed.server, definition.name));
      const state = states.get(definition.name);
      let standing: McpToolStanding;
      if (refusedName) standing = { kind: 'refused_name', message: refusedName.message };
      else if (state === undefined) standing = { kind: 'left_out' };
      else if (state.state === 'changed')
        standing = { kind: 'changed', fields: state.fields, refusal: state.refusal };
      else if (state.state === 'new') standing = { kind: 'new', refusal: state.refusal };
      else if (pin) standing = { kind: 'trusted', by: pin.trustedBy, at: pin.trustedAt };
      else
        standing = { kind: 'trusted_when_seen', by: listed.pins.size === 0 ? FIRST_SIGHT : TRUST_NEW_TOOLS };
      reviews.push({
        server: listed.server,
        tool: definition.name,
        name: mcpRegistryName(listed.server, definition.name),
        risk: mcpToolRisk(definition.name, listed.settings.tools.risk, definition.annotations),
        standing,
        definition,
        pin,
      });
    }
    for (const rejected of listed.rejected) {
      reviews.push({
        server: listed.server,
        tool: rejected.name,
        name: mcpRegistryName(listed.server, rejected.name),
        risk: undefined,
        standing: { kind: 'refused_definition', problem: rejected.problem },
        definition: undefined,
        pin: listed.pins.get(rejected.name),
      });
    }
  }
  return reviews;
}
