// The settings checks that need the running tools: each patrol's and alert route's checks (a tool that exists,
// only reads, is allowed to who runs it, and takes its arguments) and each tool budget. Made at start-up on the
// real registry, and by `config check` on a file's valid parts when another part has a schema error.

import type { Logger } from '../agent/logger.js';
import type { PermissionSettings } from '../agent/policy/permission-settings.js';
import { settingsToolPolicy } from '../agent/policy/settings-tool-policy.js';
import { ToolRegistry } from '../agent/tool-registry.js';
import { patrolProblems } from '../scheduled/patrol-validation.js';
import { createOpsTools } from '../tools/index.js';
import { mcpRegistryName } from '../tools/mcp/mcp-tool-names.js';
import { ToolSettingsError } from '../tools/tool-settings-error.js';
import { alertCheckProblems } from './alerts/alert-check-validation.js';
import type { PathProblem } from './config/settings-issues.js';
import type { Settings } from './config/settings-schema.js';
import { toolBudgetProblems } from './config/tool-budget-checks.js';

export interface CheckedTools {
  get: ToolRegistry['get'];
  names(): string[];
  /** A tool an MCP server may still bring: its checks are made when it runs. */
  awaited(name: string): boolean;
}

export function settingsToolProblems(
  settings: Settings,
  tools: CheckedTools,
  policy: ReturnType<typeof settingsToolPolicy>,
  permissions: PermissionSettings,
): PathProblem[] {
  return [
    ...patrolProblems(settings.patrols, tools, policy, settings.permissions),
    ...alertCheckProblems(settings.alerts, tools, policy, permissions),
    ...toolBudgetProblems(settings.limits, tools),
  ];
}

/** For `config check` on a file's valid parts: the built-in and configured tools (MCP tools are awaited). */
export async function partialSettingsToolProblems(
  settings: Settings,
  logger: Logger,
): Promise<PathProblem[]> {
  let built: Awaited<ReturnType<typeof createOpsTools>>;
  try {
    built = await createOpsTools(settings.tools, { logger });
  } catch (error) {
    if (error instanceof ToolSettingsError) return [...error.problems];
    throw error;
  }
  const registry = new ToolRegistry(built, []);
  const permissions = { ...settings.permissions, alert_role: settings.alerts.role };
  const tools = {
    get: (name: string) => registry.get(name),
    names: () => registry.names(),
    awaited: (name: string) => namesAnMcpServer(name, settings),
  };
  return settingsToolProblems(settings, tools, settingsToolPolicy(permissions, registry), permissions);
}

/** Whether `name` is `<server>__…` for a configured MCP server. */
export function namesAnMcpServer(name: string, settings: Settings): boolean {
  return Object.keys(settings.mcp.servers).some((server) => name.startsWith(mcpRegistryName(server, '')));
}
