// Loads the user's own tools: every module in custom_tools_dir that exports defineTool(...) results.
import { readdir } from 'node:fs/promises';
import { register } from 'node:module';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { z } from 'zod';
import { CallerError, ErrorCode, errorMessage } from '../agent/errors.js';
import { defineTool, type Tool } from '../agent/tool.js';

const MODULE_FILE = /\.(ts|mts|js|mjs)$/;
const SKIPPED_FILE = /\.d\.[mc]?ts$|\.(test|spec)\.[mc]?[tj]s$/;

export interface LoadedCustomTool {
  tool: Tool;
  /** The module it came from, for collision messages. */
  file: string;
}

/** Whether an export looks like a tool: what defineTool returns, or the definition it accepts. */
function isToolLike(value: unknown): value is Tool {
  if (typeof value !== 'object' || value === null) return false;
  const candidate = value as Partial<Tool>;
  return (
    typeof candidate.name === 'string' &&
    typeof candidate.execute === 'function' &&
    candidate.input instanceof z.ZodType
  );
}

/** Folders whose modules are already read as ES modules (custom-tool-hooks.mjs), as file URLs. */
const moduleFolders = new Set<string>();
let typescript: Promise<unknown> | undefined;

/**
 * Makes `folder`'s modules importable as the README writes them: ES modules whatever package they sit in, and
 * TypeScript compiled by tsx as it loads (registered at the first folder, so a start without one never loads it).
 * tsx first: hooks registered later run first, so the folder's hooks see what tsx resolved and set its format.
 */
async function prepareFolder(folder: string): Promise<void> {
  typescript ??= import('tsx/esm/api').then(({ register }) => register());
  await typescript;
  const url = pathToFileURL(join(folder, '/')).href;
  if (moduleFolders.has(url)) return;
  register(new URL('./custom-tool-hooks.mjs', import.meta.url), { data: { folder: url } });
  moduleFolders.add(url);
}

/**
 * Imports each .ts/.mts/.js/.mjs module in `directory` (not recursively; *.d.ts and *.test.* are skipped) in
 * name order and collects every export that is a tool, checked again through defineTool. One error listing
 * every file that failed is thrown at start-up, so a broken module cannot be missed.
 */
export async function loadCustomTools(directory: string, cwd = process.cwd()): Promise<LoadedCustomTool[]> {
  const folder = resolve(cwd, directory);
  let names: string[];
  try {
    names = (await readdir(folder, { withFileTypes: true }))
      .filter((entry) => entry.isFile() && MODULE_FILE.test(entry.name) && !SKIPPED_FILE.test(entry.name))
      .map((entry) => entry.name)
      .sort();
  } catch (error) {
    throw new CallerError(
      ErrorCode.InvalidSettings,
      `tools.custom_tools_dir: cannot read ${folder}: ${errorMessage(error)}`,
      {
        cause: error,
      },
    );
  }
  if (names.length > 0) await prepareFolder(folder);
  const loaded: LoadedCustomTool[] = [];
  const failures: string[] = [];
  for (const name of names) {
    const file = join(folder, name);
    try {
      const module = (await import(pathToFileURL(file).href)) as Record<string, unknown>;
      const tools = Object.values(module).filter(isToolLike);
      if (tools.length === 0) {
        failures.push(`${file}: exports no tool (export the result of defineTool(...))`);
        continue;
      }
      for (const tool of new Set(tools)) loaded.push({ tool: defineTool(tool), file });
    } catch (error) {
      failures.push(`${file}: ${errorMessage(error)}`);
    }
  }
  if (failures.length > 0) {
    throw new CallerError(
      ErrorCode.InvalidTool,
      `custom tools in ${folder} failed to load:\n${failures.map((failure) => `- ${failure}`).join('\n')}`,
    );
  }
  return loaded;
}
