// How an MCP server's tools are named in opsbot's registry, `<server>__<tool>`, and which of them are refused: a
// name models cannot take, or one that another tool already has. Pure, so start-up and `config check` agree.
import { matchesAnyToolPattern } from '../../agent/policy/tool-globs.js';

export const MCP_NAME_SEPARATOR = '__';
/** What OpenAI-compatible APIs accept as a function name. */
export const MCP_TOOL_NAME_MAX = 64;
const FUNCTION_NAME = /^[a-zA-Z0-9_-]+$/;

export function mcpRegistryName(server: string, tool: string): string {
  return `${server}${MCP_NAME_SEPARATOR}${tool}`;
}

/** One server's tools as it listed them, and its `tools.include` / `tools.exclude` globs. */
export interface ListedServerTools {
  server: string;
  tools: readonly string[];
  include: readonly string[];
  exclude: readonly string[];
}

export interface McpToolOrigin {
  server: string;
  /** The tool's own name on its server. */
  tool: string;
}

export interface NamedMcpTool extends McpToolOrigin {
  name: string;
}

export type McpNameRefusalReason = 'too_long' | 'invalid_characters' | 'collision';

export interface RefusedMcpTool extends NamedMcpTool {
  reason: McpNameRefusalReason;
  /** For the start-up log and `config check`: the name, why, and for a collision both origins. */
  message: string;
}

export interface McpNaming {
  named: NamedMcpTool[];
  refused: RefusedMcpTool[];
  /** Left out by the server's include/exclude globs: not offered, and not a problem. */
  filtered: McpToolOrigin[];
}

/** Whether the server's globs offer the tool: it matches an include and no exclude (exclude wins). */
export function mcpToolIncluded(
  tool: string,
  globs: Pick<ListedServerTools, 'include' | 'exclude'>,
): boolean {
  return matchesAnyToolPattern(globs.include, tool) && !matchesAnyToolPattern(globs.exclude, tool);
}

function describeOrigin(origin: McpToolOrigin): string {
  return `the tool "${origin.tool}" of MCP server "${origin.server}"`;
}

/**
 * The registry names of every server's offered tools, or why each refused one cannot be used. A name taken by a
 * built-in tool stays the built-in's; MCP tools that share a name are all refused, so which one a role or the
 * model gets never depends on the order servers answered in.
 */
export function nameMcpTools(
  servers: readonly ListedServerTools[],
  builtInNames: readonly string[],
): McpNaming {
  const filtered: McpToolOrigin[] = [];
  const refused: RefusedMcpTool[] = [];
  const candidates: NamedMcpTool[] = [];
  for (const listed of servers) {
    for (const tool of listed.tools) {
      if (!mcpToolIncluded(tool, listed)) {
        filtered.push({ server: listed.server, tool });
        continue;
      }
      const name = mcpRegistryName(listed.server, tool);
      const problem = nameProblem(name, { server: listed.server, tool });
      if (problem) refused.push({ server: listed.server, tool, name, ...problem });
      else candidates.push({ server: listed.server, tool, name });
    }
  }

  const builtIn = new Set(builtInNames);
  const byName = new Map<string, NamedMcpTool[]>();
  for (const candidate of candidates) {
    byName.set(candidate.name, [...(byName.get(candidate.name) ?? []), candidate]);
  }
  const named: NamedMcpTool[] = [];
  for (const candidate of candidates) {
    const others = (byName.get(candidate.name) ?? []).filter((other) => other !== candidate);
    const holders = [
      ...(builtIn.has(candidate.name) ? [`the built-in tool "${candidate.name}"`] : []),
      ...others.map(describeOrigin),
    ];
    if (holders.length === 0) {
      named.push(candidate);
      continue;
    }
    refused.push({
      ...candidate,
      reason: 'collision',
      message: `${candidate.name}: ${describeOrigin(candidate)} would have the same name as ${holders.join(' and ')}; it is not offered`,
    });
  }
  return { named, refused, filtered };
}

function nameProblem(
  name: string,
  origin: McpToolOrigin,
): Pick<RefusedMcpTool, 'reason' | 'message'> | undefined {
  if (!FUNCTION_NAME.test(name)) {
    return {
      reason: 'invalid_characters',
      message: `${JSON.stringify(name)}: ${describeOrigin(origin)} has characters a tool name cannot have (only letters, digits, _ and -)`,
    };
  }
  if (name.length > MCP_TOOL_NAME_MAX) {
    return {
      reason: 'too_long',
      message: `${name}: ${describeOrigin(origin)} would be named with ${name.length} characters, over the ${MCP_TOOL_NAME_MAX} a tool name may have`,
    };
  }
  return undefined;
}
