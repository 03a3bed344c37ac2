// `npm run eval`: parses the options, runs the scenarios in the chosen mode, prints the table and writes the
// JSON. Kept apart from cli.ts so that tests run it in-process with their own environment and output.
import { relative } from 'node:path';
import { parseArgs } from 'node:util';
import { type EngineKind, EngineKindSchema } from '../agent/run-engine-kind.js';
import { CASSETTES_DIR } from './cassette.js';
import { formatComparison, loadReport, ReportFileError } from './compare.js';
import { loadScenarios } from './load-scenarios.js';
import type { ModelEndpoint } from './model-source.js';
import { formatRepeats, formatTable, RESULTS_DIR, writeResults } from './report.js';
import { promptVersions } from './report-meta.js';
import { runScenarios } from './runner.js';
import { LOCK_PATH, readLock, writeLock } from './sent-lock.js';

export const USAGE = `usage: npm run eval -- [options]
       npm run eval -- compare <a.json> <b.json>   two results files side by side, and what changed
  (no mode)        scripted: every scenario's own model script, then any recorded cassette
  --live           against the model in OPENAI_BASE_URL and OPENAI_MODEL (OPENAI_API_KEY if it needs one)
  --record         with --live: save each scenario's passing run as its cassette
  --user-model <name>  with --live: the model that plays the person answering the bot's questions (from the
                   scenario's who.knows and who.persona), on the same server; the live model by default
  --judge-model <name>  grade answers against each scenario's rubric: with that model on OPENAI_BASE_URL
                   (OPENAI_API_KEY if it needs one), in any mode; the expectations still decide where a
                   scenario has them
  --engine <name>  the engine every task starts with (react, command, or any engine the kernel has); the
                   kernel's own choice by default. Recorded in the results.
  --model-delay <ms>  scripted: each model answer that many milliseconds late, to compare engines as a slow
                   model would make them (e.g. --engine react vs --engine plan with --model-delay 300)
  --update-lock    scripted, and rewrite evals/sent.lock.json with what the model is sent now
  --filter <glob>  only scenarios whose <group>/<name>, <name> or <group> matches
  --repeat N       run each scenario N times and report its pass rate
  --cassettes <dir> --lock <file> --results <dir>   other places than evals/cassettes, sent.lock.json, results`;

export interface EvalIo {
  out(text: string): void;
  err(text: string): void;
  /** Progress: one character per finished run. */
  progress(text: string): void;
}

class UsageError extends Error {}

function liveEndpoint(env: NodeJS.ProcessEnv): ModelEndpoint {
  const baseURL = env.OPENAI_BASE_URL?.trim();
  const model = env.OPENAI_MODEL?.trim();
  if (!baseURL || !model) {
    throw new UsageError(
      '--live needs the model to judge: set OPENAI_BASE_URL (e.g. http://localhost:11434/v1 for Ollama) and ' +
        'OPENAI_MODEL (e.g. qwen2.5:7b-instruct); OPENAI_API_KEY too if the server wants one',
    );
  }
  return { baseURL, model, apiKey: env.OPENAI_API_KEY?.trim() || 'no-key' };
}

function judgeEndpoint(env: NodeJS.ProcessEnv, model: string): ModelEndpoint {
  const baseURL = env.OPENAI_BASE_URL?.trim();
  if (!baseURL) {
    throw new UsageError(
      '--judge-model needs the server it runs on: set OPENAI_BASE_URL (e.g. http://localhost:11434/v1 for Ollama)',
    );
  }
  return { baseURL, model, apiKey: env.OPENAI_API_KEY?.trim() || 'no-key' };
}

function options(argv: string[]) {
  const { values } = parseArgs({
    args: argv,
    options: {
      filter: { type: 'string' },
      repeat: { type: 'string', default: '1' },
      live: { type: 'boolean', default: false },
      record: { type: 'boolean', default: false },
      'user-model': { type: 'string' },
      'judge-model': { type: 'string' },
      engine: { type: 'string' },
      'model-delay': { type: 'string' },
      'update-lock': { type: 'boolean', default: false },
      cassettes: { type: 'string', default: CASSETTES_DIR },
      lock: { type: 'string', default: LOCK_PATH },
      results: { type: 'string', default: RESULTS_DIR },
      help: { type: 'boolean', default: false },
    },
  });
  const repeat = Number(values.repeat);
  if (!Number.isInteger(repeat) || repeat < 1) {
    throw new UsageError(`--repeat must be a whole number of at least 1, not "${values.repeat}"`);
  }
  if (values.record && !values.live) throw new UsageError('--record records a live model: add --live');
  if (values['user-model'] !== undefined && !values.live) {
    throw new UsageError('--user-model plays the person in a live run: add --live');
  }
  if (values['update-lock'] && values.live)
    throw new UsageError('--update-lock is for scripted runs, not --live');
  const delay = values['model-delay'];
  const modelDelayMs = delay === undefined ? undefined : Number(delay);
  if (
    modelDelayMs !== undefined &&
    (!Number.isInteger(modelDelayMs) || modelDelayMs < 0 || modelDelayMs > 60_000)
  ) {
    throw new UsageError(`--model-delay takes milliseconds, 0 to 60000, not "${delay}"`);
  }
  if (modelDelayMs !== undefined && values.live)
    throw new UsageError('--model-delay is for scripted runs, not --live');
  return { ...values, repeat, engine: engineOption(values.engine), modelDelayMs };
}

/** Checked against the kernel's own list, so an engine added to the kernel is accepted here with no change. */
function engineOption(given: string | undefined): EngineKind | undefined {
  if (given === undefined) return undefined;
  const parsed = EngineKindSchema.safeParse(given);
  // `checks` runs a patrol's fixed calls, and a task has none to give it.
  const usable = EngineKindSchema.options.filter((kind) => kind !== 'checks');
  if (!parsed.success || parsed.data === 'checks') {
    throw new UsageError(`--engine must be one of ${usable.join(', ')}, not "${given}"`);
  }
  return parsed.data;
}

function compareCommand(paths: string[], io: EvalIo): number {
  if (paths.length !== 2) {
    io.err(`compare takes two results files, e.g. evals/results/a.json evals/results/b.json\n${USAGE}`);
    return 2;
  }
  try {
    const [before, after] = paths.map((path) => ({ path, report: loadReport(path) }));
    io.out(formatComparison(before!, after!));
    return 0;
  } catch (error) {
    if (!(error instanceof ReportFileError)) throw error;
    io.err(error.message);
    return 2;
  }
}

/**
 * Runs the command; returns the exit code: 0 all passed, 1 some failed, 2 a usage or scenario-file error.
 * `compare` exits 0 once it has printed the comparison, whatever the figures.
 */
export async function evalCommand(argv: string[], env: NodeJS.ProcessEnv, io: EvalIo): Promise<number> {
  if (argv[0] === 'compare') return compareCommand(argv.slice(1), io);
  let parsed: ReturnType<typeof options>;
  let live: ModelEndpoint | undefined;
  let judge: ModelEndpoint | undefined;
  try {
    parsed = options(argv);
    if (parsed.help) {
      io.out(USAGE);
      return 0;
    }
    live = parsed.live ? liveEndpoint(env) : undefined;
    const judgeModel = parsed['judge-model'];
    judge = judgeModel === undefined ? undefined : judgeEndpoint(env, judgeModel);
  } catch (error) {
    io.err(`${error instanceof Error ? error.message : String(error)}\n${USAGE}`);
    return 2;
  }
  const updating = parsed['update-lock'];
  const scenarios = loadScenarios();
  if (live) {
    const user = parsed['user-model'] ?? live.model;
    io.err(`live model: ${live.model} at ${live.baseURL}; the person is played by ${user}`);
  }
  const recordings: string[] = [];
  const results = await runScenarios(scenarios, {
    filter: parsed.filter,
    repeat: parsed.repeat,
    cassettesDir: parsed.cassettes,
    lock: updating ? 'skip' : readLock(parsed.lock),
    live,
    userModel: live && parsed['user-model'] ? { ...live, model: parsed['user-model'] } : undefined,
    record: parsed.record,
    judge,
    engine: parsed.engine,
    modelDelayMs: parsed.modelDelayMs,
    onResult: (result) => io.progress(result.skipped ? 's' : result.passed ? '.' : 'F'),
    onRecorded: (scenario, outcome) =>
      recordings.push(
        'path' in outcome
          ? `recorded ${scenario.group}/${scenario.name} → ${relative(process.cwd(), outcome.path)}`
          : `not recorded ${scenario.group}/${scenario.name}: ${outcome.notRecorded}`,
      ),
  });
  io.progress('\n');
  if (results.length === 0) {
    io.err(`no scenario matches --filter ${parsed.filter}`);
    return 2;
  }
  io.out(formatTable(results));
  if (parsed.repeat > 1) io.out(`\n${formatRepeats(results)}`);
  if (recordings.length > 0) io.out(`\n${recordings.join('\n')}`);
  const meta = {
    mode: live ? `live ${live.model}` : 'scripted',
    model: live ? live.model : 'fake-model (scripted)',
    engine: parsed.engine ?? 'default',
    prompts: promptVersions(),
    ...(parsed.modelDelayMs ? { modelDelayMs: parsed.modelDelayMs } : {}),
  };
  io.out(`\nresults: ${relative(process.cwd(), writeResults(results, meta, parsed.results))}`);
  if (updating) {
    const lock = readLock(parsed.lock);
    for (const result of results)
      if (result.mode === 'scripted' && result.skipped === undefined)
        lock[result.lockKey ?? `${result.group}/${result.name}`] = result.sent;
    writeLock(lock, parsed.lock);
    io.out(`updated ${relative(process.cwd(), parsed.lock)}: review the diff, and commit it with the change`);
  }
  return results.every((result) => result.passed || result.skipped !== undefined) ? 0 : 1;
}
