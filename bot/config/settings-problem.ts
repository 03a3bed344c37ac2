// One problem found in the settings file or the environment, and the error that carries all of them at once.
import { CallerError, ErrorCode } from '../../agent/errors.js';

export type SettingsPath = ReadonlyArray<string | number>;

export interface SettingsProblem {
  /**
   * Where the value lives: `permissions.roles.operator.tools[2]`, or a variable name such as `SLACK_BOT_TOKEN`;
   * empty for a problem with the file as a whole, such as a YAML syntax error.
   */
  key: string;
  /** 1-based position in the YAML file, when it could be found. */
  line?: number;
  column?: number;
  /** What was expected and what was found. */
  message: string;
}

/** Thrown once with every problem, so a person fixes the whole file in one pass instead of one error per start. */
export class InvalidSettingsError extends CallerError {
  readonly source: string;
  readonly problems: readonly SettingsProblem[];
  /**
   * The file's valid parts, when there are enough of them to be settings: `config check` runs the checks that
   * need the tools on them, so that one pass reports every problem. Never used to run the bot.
   */
  readonly partial: unknown;

  constructor(
    source: string,
    problems: readonly SettingsProblem[],
    options: { cause?: unknown; partial?: unknown } = {},
  ) {
    super(ErrorCode.InvalidSettings, formatProblems(source, problems), { cause: options.cause });
    this.source = source;
    this.problems = problems;
    this.partial = options.partial;
  }
}

export function formatProblems(source: string, problems: readonly SettingsProblem[]): string {
  const count = problems.length === 1 ? '1 problem' : `${problems.length} problems`;
  const lines = problems.map((problem) => `  - ${where(problem)}: ${indentContinuation(problem.message)}`);
  return [`${source} has ${count}:`, ...lines].join('\n');
}

function where(problem: SettingsProblem): string {
  if (problem.key !== '')
    return problem.line === undefined ? problem.key : `${problem.key} (line ${problem.line})`;
  if (problem.line === undefined) return 'the file';
  return problem.column === undefined
    ? `line ${problem.line}`
    : `line ${problem.line}, column ${problem.column}`;
}

function indentContinuation(message: string): string {
  return message.replace(/\n/g, '\n      ');
}

const plainKey = /^[A-Za-z_][A-Za-z0-9_-]*$/;

/** `permissions.identities["slack:U123"].roles[0]`: dots for plain keys, brackets for anything else. */
export function formatKeyPath(path: SettingsPath): string {
  let text = '';
  for (const part of path) {
    if (typeof part === 'number') text += `[${part}]`;
    else if (plainKey.test(part)) text += text === '' ? part : `.${part}`;
    else text += `[${JSON.stringify(part)}]`;
  }
  return text;
}

/** A short, human description of a value found in the file: `"reed"`, `42`, `a list`, `nothing`. */
export function describeValue(value: unknown): string {
  if (value === null || value === undefined) return 'nothing (an empty value)';
  if (typeof value === 'string') {
    const shown = value.length > 60 ? `${value.slice(0, 57)}...` : value;
    return JSON.stringify(shown);
  }
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) return value.length === 0 ? 'an empty list' : `a list of ${value.length}`;
  if (typeof value === 'object') return 'a mapping';
  return typeof value;
}
