// Checks between settings that the schema cannot express: patterns that must compile, command placeholders that
// must match parameters, aliases that must name a tool. Role references are checked by the permissions schema.
import { isAbsolute } from 'node:path';
import safeRegex from 'safe-regex2';
import { didYouMean } from '../../agent/did-you-mean.js';
import { errorMessage } from '../../agent/errors.js';
import { alertRoleProblems, alertRouteProblems } from '../alerts/alert-settings-checks.js';
import type { PathProblem } from './settings-issues.js';
import type { Settings } from './settings-schema.js';

// What OpenAI-compatible APIs accept as a function name; a command becomes a tool under its own name.
const TOOL_NAME = /^[A-Za-z0-9_-]{1,64}$/;
const PLACEHOLDER = /\{([^{}]*)\}/g;

type SectionCheck<Key extends keyof Settings> = (section: Settings[Key]) => PathProblem[];

/**
 * One check per top-level section, each needing only its own section, so a section that passed the schema is
 * still checked when another section failed it: every problem is reported in one pass.
 */
export const sectionChecks: { [Key in keyof Settings]?: SectionCheck<Key> } = {
  redaction: checkRedaction,
  tools: checkTools,
  aliases: checkAliases,
  alerts: alertRouteProblems,
};

export function crossCheckSettings(settings: Settings): PathProblem[] {
  return [
    ...checkRedaction(settings.redaction),
    ...checkTools(settings.tools),
    ...checkAliases(settings.aliases),
    ...alertRouteProblems(settings.alerts),
    ...alertRoleProblems(settings.alerts, settings.permissions.roles),
  ];
}

function checkRedaction(redaction: Settings['redaction']): PathProblem[] {
  return redaction.patterns.flatMap((source, index) => {
    const problem = regexProblem(source, true);
    return problem === undefined ? [] : [{ path: ['redaction', 'patterns', index], message: problem }];
  });
}

/** Why `source` is unusable as a regular expression, or undefined when it is fine. */
function regexProblem(source: string, forRedaction: boolean): string | undefined {
  let pattern: RegExp;
  try {
    pattern = new RegExp(source, 'g');
  } catch (error) {
    return `expected a regular expression, found ${JSON.stringify(source)}: ${errorMessage(error)}`;
  }
  // Redaction runs on every log line and tool output, so it must neither match nothing-at-all nor backtrack forever.
  if (forRedaction && pattern.test('')) {
    return `the regular expression ${JSON.stringify(source)} matches empty text, so it would redact nothing useful`;
  }
  if (forRedaction && !safeRegex(pattern)) {
    return `the regular expression ${JSON.stringify(source)} may take exponential time (repetition inside repetition); rewrite it`;
  }
  return undefined;
}

function checkTools(tools: Settings['tools']): PathProblem[] {
  const problems: PathProblem[] = [];
  tools.allowed_executables.forEach((executable, index) => {
    if (!isAbsolute(executable)) {
      problems.push({
        path: ['tools', 'allowed_executables', index],
        message: `expected an absolute path such as /usr/bin/systemctl, found ${JSON.stringify(executable)}`,
      });
    }
  });
  for (const [name, command] of Object.entries(tools.commands)) {
    problems.push(...checkCommand(name, command));
  }
  return problems;
}

function checkCommand(name: string, command: Settings['tools']['commands'][string]): PathProblem[] {
  const at = (...rest: Array<string | number>) => ['tools', 'commands', name, ...rest];
  const problems: PathProblem[] = [];
  const declared = Object.keys(command.parameters);
  const used = new Set<string>();

  if (!TOOL_NAME.test(name)) {
    problems.push({
      path: at(),
      message: `a command becomes a tool of the same name, so it must be 1-64 letters, digits, _ or -; found ${JSON.stringify(name)}`,
    });
  }
  command.argv.forEach((argument, index) => {
    for (const match of argument.matchAll(PLACEHOLDER)) {
      const parameter = match[1] ?? '';
      used.add(parameter);
      if (index === 0) {
        problems.push({
          path: at('argv', 0),
          message: `the program must be fixed, not a placeholder: found ${JSON.stringify(argument)}`,
        });
      } else if (!Object.hasOwn(command.parameters, parameter)) {
        problems.push({
          path: at('argv', index),
          message: `placeholder {${parameter}} names no parameter${didYouMean(parameter, declared)}; declared parameters: ${declared.join(', ') || 'none'}`,
        });
      }
    }
  });
  const program = command.argv[0] ?? '';
  // Whether the program is allowed is decided on the real file system when the command tool is built; here
  // only the shape that can never work: a relative path, which would depend on the working directory.
  if (program.includes('/') && !isAbsolute(program)) {
    problems.push({
      path: at('argv', 0),
      message: `expected a program name or an absolute path, found the relative path ${JSON.stringify(program)}`,
    });
  }
  for (const [parameter, settings] of Object.entries(command.parameters)) {
    if (!used.has(parameter)) {
      problems.push({
        path: at('parameters', parameter),
        message: `parameter "${parameter}" is declared but no argv entry uses {${parameter}}`,
      });
    }
    const patternProblem = settings.pattern === undefined ? undefined : regexProblem(settings.pattern, false);
    if (patternProblem !== undefined) {
      problems.push({ path: at('parameters', parameter, 'pattern'), message: patternProblem });
    }
  }
  return problems;
}

function checkAliases(aliases: Settings['aliases']): PathProblem[] {
  const problems: PathProblem[] = [];
  for (const [alias, expansion] of Object.entries(aliases)) {
    if (/\s/.test(alias) || alias === '') {
      problems.push({
        path: ['aliases', alias],
        message: `an alias is typed as one word, so it cannot contain spaces; found ${JSON.stringify(alias)}`,
      });
    }
    const tool = expansion.trim().split(/\s+/)[0] ?? '';
    if (!TOOL_NAME.test(tool)) {
      problems.push({
        path: ['aliases', alias],
        message: `expected a tool name followed by optional arguments, such as "disk_usage paths=/", found ${JSON.stringify(expansion)}`,
      });
    }
  }
  return problems;
}
