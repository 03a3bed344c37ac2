// The bench's settings, read once from flags, environment and preset, with every problem listed at once.
import { resolve } from 'node:path';
import { type ParseArgsConfig, parseArgs } from 'node:util';
import { RUNNER_NAMES, type RunnerName } from './runners/runner.js';

export interface Workload {
  /** Every runner runs once per round, each time in a fresh process. */
  rounds: number;
  /** Unmeasured runs in each process before the measured ones. */
  warmup: number;
  /** Measured runs in each process. */
  runs: number;
  /** Runs in flight at once. */
  concurrency: number;
}

export const FULL_WORKLOAD = { rounds: 5, warmup: 500, runs: 1000, concurrency: 50 } satisfies Workload;
/** For development and smoke checks: the same method, small enough to finish in well under a minute. */
export const QUICK_WORKLOAD = { rounds: 3, warmup: 50, runs: 100, concurrency: 50 } satisfies Workload;

/** Flags win over the environment, which wins over the preset. */
export const WORKLOAD_SOURCES = {
  rounds: { flag: '--rounds', env: 'BENCH_ROUNDS', minimum: 1 },
  warmup: { flag: '--warmup', env: 'BENCH_WARMUP', minimum: 0 },
  runs: { flag: '--runs', env: 'BENCH_RUNS', minimum: 1 },
  concurrency: { flag: '--concurrency', env: 'BENCH_CONCURRENCY', minimum: 1 },
} as const satisfies Record<keyof Workload, { flag: string; env: string; minimum: number }>;

export interface BenchSettings extends Workload {
  quick: boolean;
  /** In the order of round 1. */
  runners: RunnerName[];
  /** Where the JSON report goes, or null to print only. */
  resultsPath: string | null;
  /** Where runner processes write CPU profiles, or null for none. */
  profileDir: string | null;
  /** Runners from the TypeScript sources through tsx, instead of bundled as opsbot ships. */
  source: boolean;
}

export type SettingsOutcome =
  | { ok: true; settings: BenchSettings }
  | { ok: false; problems: string[] }
  | { ok: 'help' };

export const USAGE = `usage: npm run bench -- [--quick] [--rounds N] [--warmup N] [--runs N] [--concurrency N]
                        [--only a,b] [--out FILE | --no-write] [--profile DIR] [--source]
environment: BENCH_ROUNDS, BENCH_WARMUP, BENCH_RUNS, BENCH_CONCURRENCY (a flag wins over its variable)
full defaults: ${describe(FULL_WORKLOAD)}; --quick: ${describe(QUICK_WORKLOAD)}
runners: ${RUNNER_NAMES.join(', ')}`;

export function readSettings(
  argv: string[],
  env: Record<string, string | undefined>,
  defaultResultsPath: string,
): SettingsOutcome {
  const problems: string[] = [];
  const values = readFlags(argv, problems);
  if (values.help) return { ok: 'help' };
  const preset: Workload = values.quick ? QUICK_WORKLOAD : FULL_WORKLOAD;
  const workload = { ...preset };
  for (const key of Object.keys(WORKLOAD_SOURCES) as (keyof Workload)[]) {
    const { flag, env: variable, minimum } = WORKLOAD_SOURCES[key];
    const fromFlag = values[key];
    const [raw, source] =
      fromFlag !== undefined ? [fromFlag, flag] : [env[variable], `environment variable ${variable}`];
    if (raw === undefined || raw === '') continue;
    const value = Number(raw);
    if (!Number.isInteger(value) || value < minimum) {
      problems.push(`${source} must be a whole number ≥ ${minimum}; got ${JSON.stringify(raw)}`);
    } else {
      workload[key] = value;
    }
  }
  const runners = values.only ? parseRunnerList(values.only, problems) : [...RUNNER_NAMES];
  if (values.out !== undefined && values['no-write'])
    problems.push('--out and --no-write contradict each other');
  if (problems.length > 0) return { ok: false, problems };
  return {
    ok: true,
    settings: {
      ...workload,
      quick: values.quick ?? false,
      runners,
      resultsPath: resultsPath(values, defaultResultsPath),
      profileDir: values.profile === undefined ? null : resolve(values.profile),
      source: values.source ?? false,
    },
  };
}

const FLAGS = {
  quick: { type: 'boolean' },
  rounds: { type: 'string' },
  warmup: { type: 'string' },
  runs: { type: 'string' },
  concurrency: { type: 'string' },
  only: { type: 'string' },
  out: { type: 'string' },
  'no-write': { type: 'boolean' },
  profile: { type: 'string' },
  source: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const satisfies NonNullable<ParseArgsConfig['options']>;

type FlagValues = {
  [Name in keyof typeof FLAGS]?: (typeof FLAGS)[Name]['type'] extends 'string' ? string : boolean;
};

/** Not strict, so that an unknown flag joins the list of problems instead of hiding the others. */
function readFlags(argv: string[], problems: string[]): FlagValues {
  const { values, tokens, positionals } = parseArgs({
    args: argv,
    options: FLAGS,
    strict: false,
    tokens: true,
  });
  for (const token of tokens) {
    if (token.kind !== 'option') continue;
    const flag = Object.hasOwn(FLAGS, token.name) ? FLAGS[token.name as keyof typeof FLAGS] : undefined;
    if (!flag) problems.push(`unknown flag ${token.rawName}`);
    else if (flag.type === 'string' && token.value === undefined)
      problems.push(`${token.rawName} needs a value`);
    else if (flag.type === 'boolean' && token.value !== undefined)
      problems.push(`${token.rawName} takes no value`);
  }
  if (positionals.length > 0) problems.push(`unexpected argument ${JSON.stringify(positionals[0])}`);
  const known: FlagValues = {};
  for (const name of Object.keys(FLAGS) as (keyof typeof FLAGS)[]) {
    const value = values[name];
    if (typeof value === (FLAGS[name].type === 'string' ? 'string' : 'boolean'))
      Object.assign(known, { [name]: value });
  }
  return known;
}

/** bench/results/kernel.json records full sessions of all runners; a quick or partial one goes there only if asked. */
function resultsPath(
  values: { out?: string; 'no-write'?: boolean; quick?: boolean; only?: string },
  defaultResultsPath: string,
): string | null {
  if (values['no-write']) return null;
  if (values.out !== undefined) return resolve(values.out);
  if (values.quick || values.only) return null;
  return defaultResultsPath;
}

function parseRunnerList(raw: string, problems: string[]): RunnerName[] {
  const names = raw.split(',').map((name) => name.trim());
  const known = new Set<string>(RUNNER_NAMES);
  for (const name of names) {
    if (!known.has(name))
      problems.push(`--only: unknown runner "${name}"; choose from ${RUNNER_NAMES.join(', ')}`);
  }
  if (new Set(names).size !== names.length) problems.push(`--only names a runner twice: ${raw}`);
  return names as RunnerName[];
}

function describe(workload: Workload): string {
  return `${workload.rounds} rounds, warm-up ${workload.warmup}, ${workload.runs} runs, concurrency ${workload.concurrency}`;
}
