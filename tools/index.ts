// The ops tool pack: built-in checks, configured commands and the user's own tools, as one list for the kernel.
import { CallerError, ErrorCode, errorMessage } from '../agent/errors.js';
import type { Logger } from '../agent/logger.js';
import type { Tool } from '../agent/tool.js';
import { createConfiguredCommandTool } from './configured-command.js';
import { createDiskUsageTool } from './disk-usage.js';
import { createDnsLookupTool } from './dns-lookup.js';
import { ExecutableAllowList } from './executable-allow-list.js';
import { createHttpCheckTool } from './http-check.js';
import { loadCustomTools } from './load-custom-tools.js';
import { createLogSearchTool } from './log-search.js';
import { createNetworkGuard, type Resolve } from './network-guard.js';
import { createProcessCheckTool } from './process-check.js';
import type { Environment } from './prometheus/endpoint-headers.js';
import { createMonitoringTools } from './prometheus/monitoring-tools.js';
import { createSystemStatsTool } from './system-stats.js';
import { createTcpCheckTool } from './tcp-check.js';
import { createTlsCertificateTool } from './tls-certificate.js';
import { problemFromMessage, ToolSettingsError, type ToolSettingsProblem } from './tool-settings-error.js';
import type { ToolSettings } from './tool-settings-schema.js';

export interface OpsToolsOptions {
  logger?: Logger;
  /** Base for relative paths in the settings (log roots, command cwd, custom_tools_dir). */
  cwd?: string;
  /** Host name resolution for the network guard; the system resolver when absent. */
  resolve?: Resolve;
  /** PATH used to find command programs named without a path; process.env.PATH when absent. */
  pathVariable?: string;
  /** Time between SIGTERM and SIGKILL when a command is stopped. */
  killGraceMs?: number;
  /** Where `${NAME}` in the Prometheus and Alertmanager headers is looked up; process.env when absent. */
  environment?: Environment;
}

function settingsError(key: string, error: unknown): CallerError {
  return new CallerError(ErrorCode.InvalidSettings, `${key}: ${errorMessage(error)}`, { cause: error });
}

/** The built-in ops tools alone, for callers (and tests) that need no commands or custom tools. */
export function createBuiltInTools(settings: ToolSettings, options: OpsToolsOptions = {}): Tool[] {
  let guard: ReturnType<typeof createNetworkGuard>;
  try {
    guard = createNetworkGuard(settings.network, { resolve: options.resolve });
  } catch (error) {
    throw settingsError('tools.network', error);
  }
  let dnsLookup: Tool;
  try {
    dnsLookup = createDnsLookupTool({ servers: settings.dns_servers });
  } catch (error) {
    throw settingsError('tools.dns_servers', error);
  }
  let monitoring: Tool[];
  try {
    monitoring = createMonitoringTools(settings, { guard, environment: options.environment ?? process.env });
  } catch (error) {
    throw new CallerError(ErrorCode.InvalidSettings, errorMessage(error), { cause: error });
  }
  return [
    createHttpCheckTool({ guard }),
    createTcpCheckTool({ guard }),
    dnsLookup,
    createTlsCertificateTool({ guard }),
    createDiskUsageTool(),
    createSystemStatsTool(),
    createProcessCheckTool(),
    createLogSearchTool({ roots: settings.log_roots, cwd: options.cwd }),
    ...monitoring,
  ];
}

/**
 * Every tool the settings describe: the built-in checks, one tool per `commands` entry, and the modules in
 * `custom_tools_dir`. Throws a CallerError at start-up naming the settings key or file at fault, including when
 * two tools would share a name.
 */
export async function createOpsTools(settings: ToolSettings, options: OpsToolsOptions = {}): Promise<Tool[]> {
  const cwd = options.cwd ?? process.cwd();
  const origins = new Map<string, string>();
  const tools: Tool[] = [];
  const add = (tool: Tool, origin: string) => {
    const existing = origins.get(tool.name);
    if (existing !== undefined) {
      throw new CallerError(
        ErrorCode.InvalidSettings,
        `two tools are named ${tool.name}: ${existing} and ${origin}; rename one of them`,
      );
    }
    origins.set(tool.name, origin);
    tools.push(tool);
  };

  for (const tool of createBuiltInTools(settings, options)) add(tool, 'the built-in tool');

  let allowList: ExecutableAllowList;
  try {
    allowList = new ExecutableAllowList(settings.allowed_executables);
  } catch (error) {
    throw settingsError('tools.allowed_executables', error);
  }
  // Every command is checked, so one start-up names every program missing from the allow-list, not the first.
  const problems: ToolSettingsProblem[] = [];
  for (const [name, command] of Object.entries(settings.commands)) {
    try {
      const tool = await createConfiguredCommandTool(name, command, {
        allowList,
        outputLimitBytes: settings.output_limit_bytes,
        cwd,
        pathVariable: options.pathVariable,
        killGraceMs: options.killGraceMs,
        logger: options.logger,
      });
      add(tool, `tools.commands.${name}`);
    } catch (error) {
      problems.push(problemFromMessage(errorMessage(error), ['tools', 'commands', name]));
    }
  }
  if (problems.length > 0) throw new ToolSettingsError(problems);

  if (settings.custom_tools_dir !== undefined) {
    for (const { tool, file } of await loadCustomTools(settings.custom_tools_dir, cwd)) add(tool, file);
  }
  options.logger?.info({ tools: tools.map((tool) => tool.name) }, 'ops tools ready');
  return tools;
}

export { type AlertmanagerReader, createAlertmanagerReader } from './prometheus/alertmanager-alert-list.js';
