// Every problem with the tool settings found at start-up, each with its key path, so the settings loader can
// add the file and line; the message alone still lists them all.
import { CallerError, ErrorCode } from '../agent/errors.js';

export interface ToolSettingsProblem {
  /** From the settings root: ['tools', 'commands', 'restart', 'argv', 0]. */
  path: Array<string | number>;
  message: string;
}

export class ToolSettingsError extends CallerError {
  constructor(readonly problems: readonly ToolSettingsProblem[]) {
    super(
      ErrorCode.InvalidSettings,
      problems.map((problem) => `${formatToolPath(problem.path)}: ${problem.message}`).join('\n'),
    );
  }
}

/** "tools.commands.x.argv[0]: message" as a path and a message; otherwise the whole text under `fallback`. */
export function problemFromMessage(text: string, fallback: Array<string | number>): ToolSettingsProblem {
  const match = /^(tools(?:\.[\w-]+|\[\d+\])+): ([\s\S]*)$/.exec(text);
  if (!match) return { path: fallback, message: text };
  const path = [...match[1]!.matchAll(/\.([\w-]+)|\[(\d+)\]/g)].map((part) =>
    part[2] === undefined ? part[1]! : Number(part[2]),
  );
  return { path: ['tools', ...path], message: match[2]! };
}

function formatToolPath(path: Array<string | number>): string {
  return path
    .map((part, index) => (typeof part === 'number' ? `[${part}]` : index === 0 ? part : `.${part}`))
    .join('');
}
