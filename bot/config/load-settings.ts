// Reads opsbot.yaml (or OPSBOT_CONFIG's file), validates it, and reports every problem with its key and line.
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { LineCounter, parseDocument } from 'yaml';
import { CallerError, ErrorCode, errorMessage } from '../../agent/errors.js';
import { salvagedSettings } from './salvaged-settings.js';
import { crossCheckSettings, sectionChecks } from './settings-cross-checks.js';
import { issuesToProblems, type PathProblem } from './settings-issues.js';
import {
  describeValue,
  formatKeyPath,
  InvalidSettingsError,
  type SettingsPath,
  type SettingsProblem,
} from './settings-problem.js';
import { type Settings, SettingsSchema } from './settings-schema.js';
import { unknownKeyProblems } from './settings-strictness.js';
import { locate, yamlSyntaxProblems } from './yaml-locations.js';

export const DEFAULT_SETTINGS_PATH = './opsbot.yaml';

/** Where the path came from, which decides what a missing file means. */
export type SettingsOrigin = 'default' | 'OPSBOT_CONFIG' | 'argument';

export interface LoadSettingsOptions {
  /** Inferred when absent: the default path is `default`, any other path `argument`. */
  origin?: SettingsOrigin;
}

export interface LoadedSettings {
  settings: Settings;
  /** The absolute path read, or looked for when `source` is `defaults`. */
  path: string;
  /** `defaults` when the default file does not exist and the built-in settings apply. */
  source: 'defaults' | 'file';
}

/** The settings path for this environment: OPSBOT_CONFIG when set, else ./opsbot.yaml. */
export function settingsLocation(environment: { OPSBOT_CONFIG?: string | undefined }): {
  path: string;
  origin: SettingsOrigin;
} {
  const configured = environment.OPSBOT_CONFIG;
  return configured === undefined || configured === ''
    ? { path: DEFAULT_SETTINGS_PATH, origin: 'default' }
    : { path: configured, origin: 'OPSBOT_CONFIG' };
}

export function defaultSettings(): Settings {
  return SettingsSchema.parse({});
}

export async function loadSettings(path: string, options: LoadSettingsOptions = {}): Promise<LoadedSettings> {
  const absolutePath = resolve(path);
  const origin = options.origin ?? (absolutePath === resolve(DEFAULT_SETTINGS_PATH) ? 'default' : 'argument');
  let text: string;
  try {
    text = await readFile(absolutePath, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') {
      const from = origin === 'OPSBOT_CONFIG' ? ' (named by OPSBOT_CONFIG)' : '';
      throw new CallerError(
        ErrorCode.InvalidSettings,
        `Cannot read the settings file ${absolutePath}${from}: ${errorMessage(error)}`,
        { cause: error },
      );
    }
    // Running without a settings file is the supported first start; a path someone chose must exist.
    if (origin === 'default') return { settings: defaultSettings(), path: absolutePath, source: 'defaults' };
    throw new CallerError(ErrorCode.InvalidSettings, missingFileMessage(absolutePath, origin), {
      cause: error,
    });
  }
  return { settings: parseSettings(text, absolutePath), path: absolutePath, source: 'file' };
}

function missingFileMessage(absolutePath: string, origin: SettingsOrigin): string {
  if (origin === 'OPSBOT_CONFIG') {
    return (
      `OPSBOT_CONFIG names the settings file ${absolutePath}, which does not exist. ` +
      `Fix the path, or unset OPSBOT_CONFIG to use ${DEFAULT_SETTINGS_PATH} (or the built-in defaults without it).`
    );
  }
  return `The settings file ${absolutePath} does not exist.`;
}

/** Parses and validates settings text; `sourceName` is the file name used in every error. */
export function parseSettings(yamlText: string, sourceName: string): Settings {
  const lineCounter = new LineCounter();
  const document = parseDocument(yamlText, { lineCounter, prettyErrors: true });
  if (document.errors.length > 0) {
    throw new InvalidSettingsError(sourceName, yamlSyntaxProblems(document.errors, yamlText));
  }

  let raw: unknown;
  try {
    raw = document.toJS();
  } catch (error) {
    // toJS refuses documents that expand aliases excessively (the "billion laughs" shape).
    throw new InvalidSettingsError(sourceName, [{ key: '', message: errorMessage(error) }], { cause: error });
  }
  // An empty file, or one with only comments, means "all defaults".
  raw ??= {};
  if (typeof raw !== 'object' || Array.isArray(raw)) {
    throw new InvalidSettingsError(sourceName, [
      { key: '', line: 1, message: `expected a mapping of settings keys, found ${describeValue(raw)}` },
    ]);
  }

  const result = SettingsSchema.safeParse(raw);
  const problems = [
    ...(result.success
      ? crossCheckSettings(result.data)
      : [
          ...issuesToProblems(result.error.issues, SettingsSchema, raw),
          ...crossCheckValidSections(raw as Record<string, unknown>),
        ]),
    ...unknownKeyProblems(SettingsSchema, raw),
  ];
  const source: SettingsSource = {
    name: sourceName,
    locate: (path) => locate(document, lineCounter, path) ?? {},
  };
  if (!result.success || problems.length > 0) {
    const located = problems.map((problem): SettingsProblem => {
      const position = locate(document, lineCounter, problem.path);
      return { key: formatKeyPath(problem.path), ...position, message: problem.message };
    });
    // The valid parts, for `config check` to run the checks that need the tools on them too.
    const partial = result.success ? result.data : salvagedSettings(raw as Record<string, unknown>);
    if (partial) sources.set(partial, source);
    throw new InvalidSettingsError(sourceName, sortByLine(located), partial ? { partial } : {});
  }
  sources.set(result.data, source);
  return result.data;
}

/** Where parsed settings came from, so checks that need the running tools can still name the file and line. */
export interface SettingsSource {
  name: string;
  locate(path: SettingsPath): { line?: number; column?: number };
}

const sources = new WeakMap<Settings, SettingsSource>();

/**
 * Problems found after loading (they need the tools and the policy), reported like the loader's own: every one
 * with its key and line, in one error.
 */
export function settingsProblemsError(settings: Settings, problems: PathProblem[]): InvalidSettingsError {
  const source = sources.get(settings);
  const located = problems.map(
    (problem): SettingsProblem => ({
      key: formatKeyPath(problem.path),
      ...(source?.locate(problem.path) ?? {}),
      message: problem.message,
    }),
  );
  return new InvalidSettingsError(source?.name ?? 'the settings', sortByLine(located));
}

/** Cross-checks the sections that are valid on their own, so they are not hidden by another section's problems. */
function crossCheckValidSections(raw: Record<string, unknown>): PathProblem[] {
  return (Object.keys(sectionChecks) as Array<keyof Settings>).flatMap((key) => {
    const section = SettingsSchema.shape[key].safeParse(raw[key]);
    const check = sectionChecks[key] as ((value: unknown) => PathProblem[]) | undefined;
    return section.success && check !== undefined ? check(section.data) : [];
  });
}

// Reading the file top to bottom is how people fix it; problems without a line go last.
export function sortByLine(problems: SettingsProblem[]): SettingsProblem[] {
  return problems
    .map((problem, index) => ({ problem, index }))
    .sort((a, b) => (a.problem.line ?? Infinity) - (b.problem.line ?? Infinity) || a.index - b.index)
    .map(({ problem }) => problem);
}
