// The environment a command's child process gets: an allow-list, never a copy of opsbot's own environment.

/**
 * Passed from opsbot's environment to every child: what programs need to find binaries, a home and a
 * locale, no more. A deny-list of secret-looking names missed PGPASSWORD, MYSQL_PWD, DOCKER_AUTH_CONFIG and
 * the like, so nothing else passes unless a command lists it under `env:`.
 */
const BASE_NAMES: ReadonlySet<string> = new Set(['PATH', 'HOME', 'LANG', 'TZ', 'USER']);
const BASE_PREFIX = 'LC_';

/** Marks every process a call starts (children inherit it), so a timeout can find the ones that left. */
export const CALL_MARK_VARIABLE = 'OPSBOT_CALL';

const ENTRY = /^([A-Za-z_][A-Za-z0-9_]*)(?:=([\s\S]*))?$/;

/** One `env:` entry: `NAME` passes opsbot's value through, `NAME=value` sets it. */
export interface EnvironmentEntry {
  name: string;
  /** Absent for a pass-through. */
  value?: string;
}

/** Why an `env:` entry cannot be used, or undefined when it can. */
export function environmentEntryProblem(entry: string): string | undefined {
  const parsed = ENTRY.exec(entry);
  if (!parsed)
    return 'must be NAME (passed through from opsbot) or NAME=value (set), NAME being letters, digits and _';
  if (parsed[1] === CALL_MARK_VARIABLE) return `${CALL_MARK_VARIABLE} is set by opsbot for every call`;
  return undefined;
}

export function parseEnvironmentEntry(entry: string): EnvironmentEntry {
  const parsed = ENTRY.exec(entry);
  if (!parsed?.[1]) throw new Error(`env entry ${JSON.stringify(entry)}: ${environmentEntryProblem(entry)}`);
  return parsed[2] === undefined ? { name: parsed[1] } : { name: parsed[1], value: parsed[2] };
}

/**
 * The child's whole environment: the base names and LC_* from `parent`, then each entry of the command's
 * `env:` in order (a later entry wins), then the call mark, which nothing can override.
 */
export function childEnvironment(
  parent: NodeJS.ProcessEnv,
  entries: readonly string[],
  callId: string,
): Record<string, string> {
  const result: Record<string, string> = {};
  for (const [name, value] of Object.entries(parent)) {
    if (value === undefined) continue;
    if (BASE_NAMES.has(name) || name.startsWith(BASE_PREFIX)) result[name] = value;
  }
  for (const entry of entries.map(parseEnvironmentEntry)) {
    const value = entry.value ?? parent[entry.name];
    if (value !== undefined) result[entry.name] = value;
  }
  result[CALL_MARK_VARIABLE] = callId;
  return result;
}
