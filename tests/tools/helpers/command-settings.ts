// Builds configured-command tools from settings text the way opsbot.yaml would give them.

import type { Tool } from '../../../agent/tool.js';
import { createConfiguredCommandTool } from '../../../tools/configured-command.js';
import { ExecutableAllowList } from '../../../tools/executable-allow-list.js';
import { CommandSettingsSchema } from '../../../tools/tool-settings-schema.js';

export interface CommandToolOptions {
  allowed: string[];
  outputLimitBytes?: number;
  pathVariable?: string;
  env?: NodeJS.ProcessEnv;
  killGraceMs?: number;
  cwd?: string;
}

export function commandTool(name: string, settings: unknown, options: CommandToolOptions): Promise<Tool> {
  return createConfiguredCommandTool(name, CommandSettingsSchema.parse(settings), {
    allowList: new ExecutableAllowList(options.allowed),
    outputLimitBytes: options.outputLimitBytes ?? 64 * 1024,
    cwd: options.cwd ?? process.cwd(),
    pathVariable: options.pathVariable,
    env: options.env,
    killGraceMs: options.killGraceMs,
  });
}
