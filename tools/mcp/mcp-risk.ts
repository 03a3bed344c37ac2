// An MCP tool's risk: the settings decide first; the server's annotations are only the default, as the server is
// not trusted to describe itself.
import type { Risk } from '../../agent/tool.js';

export type McpRiskSource = 'settings' | 'readOnlyHint' | 'destructiveHint' | 'default';

export interface McpRisk {
  risk: Risk;
  /** Where the risk came from, for `config check` and `opsbot mcp list`. */
  source: McpRiskSource;
}

/** The annotations that bear on risk; the others (title, idempotentHint, openWorldHint) do not. */
export interface McpRiskHints {
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
}

/**
 * `tools.risk` names the tool → that; else `readOnlyHint: true` → read; else `destructiveHint: true` → danger;
 * else write. A tool that says nothing is not taken to be harmless.
 */
export function mcpToolRisk(
  tool: string,
  riskSettings: Readonly<Record<string, Risk>>,
  annotations: McpRiskHints | undefined,
): McpRisk {
  if (Object.hasOwn(riskSettings, tool)) return { risk: riskSettings[tool] as Risk, source: 'settings' };
  if (annotations?.readOnlyHint === true) return { risk: 'read', source: 'readOnlyHint' };
  if (annotations?.destructiveHint === true) return { risk: 'danger', source: 'destructiveHint' };
  return { risk: 'write', source: 'default' };
}
