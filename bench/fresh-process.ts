// Runs one runner job in a new node process, so no runner inherits another's JIT, heap, modules or hooks.
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { Measurement } from './measure.js';
import { type RunnerJob, RunnerReply } from './runner-job.js';
import { BrokenRunError } from './runners/runner.js';

const entry = fileURLToPath(new URL('./runner-process.ts', import.meta.url));
const repoRoot = fileURLToPath(new URL('..', import.meta.url));

export interface FreshProcessOptions {
  /** The bundled runner process (runner-bundle.ts); without it, the TypeScript source runs through tsx. */
  bundle?: string | null;
  /** When set, the process writes a V8 CPU profile (warm-up included) named `profileName` here. */
  profileDir?: string | null;
  profileName?: string;
}

export async function measureInFreshProcess(
  job: RunnerJob,
  options: FreshProcessOptions = {},
): Promise<Measurement> {
  const profiling = options.profileDir
    ? [
        '--cpu-prof',
        `--cpu-prof-dir=${options.profileDir}`,
        `--cpu-prof-name=${options.profileName ?? `${job.runner}.cpuprofile`}`,
      ]
    : [];
  // Plain node (with source maps for the bundle, as bin/program.js runs it, or the tsx loader for the source), not
  // this process's execArgv, so every runner starts the same.
  const child = fork(options.bundle ?? entry, [JSON.stringify(job)], {
    cwd: repoRoot,
    execArgv: options.bundle ? ['--enable-source-maps', ...profiling] : ['--import', 'tsx', ...profiling],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    serialization: 'json',
  });
  let reply: unknown;
  child.once('message', (message) => {
    reply = message;
  });
  const exit = await new Promise<{ code: number | null; signal: NodeJS.Signals | null }>(
    (resolve, reject) => {
      child.once('error', reject);
      child.once('close', (code, signal) => resolve({ code, signal }));
    },
  );
  if (reply === undefined) {
    throw new Error(
      `the ${job.runner} process ended (code ${exit.code}, signal ${exit.signal}) without sending its figures`,
    );
  }
  const parsed = RunnerReply.parse(reply);
  if (!parsed.ok) throw new BrokenRunError(parsed.error);
  return parsed.measurement;
}
