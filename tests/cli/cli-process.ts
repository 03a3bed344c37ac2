// Runs `opsbot` as a user would: the real command (bin/opsbot.js) as a child process, or its entry in this process.
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { runCli } from '../../bot/cli/main.js';

export const OPSBOT_BIN = fileURLToPath(new URL('../../bin/opsbot.js', import.meta.url));

export interface CliProcessResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Environment with nothing from the test runner's own model or store settings leaking in. */
export function cliEnvironment(extra: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: process.env.HOME, NO_COLOR: '1' };
  return { ...env, LOG_LEVEL: 'error', ...extra };
}

/** Starts `opsbot <argv>` with piped stdio; the caller writes stdin and reads the streams. */
export function startCli(argv: string[], env: NodeJS.ProcessEnv): ChildProcessWithoutNullStreams {
  return spawn(process.execPath, [OPSBOT_BIN, ...argv], { env, stdio: 'pipe' });
}

/** Runs `opsbot <argv>` to its end, with `input` on stdin, and collects what it printed. */
export async function runCliProcess(
  argv: string[],
  env: NodeJS.ProcessEnv,
  input = '',
): Promise<CliProcessResult> {
  const child = startCli(argv, env);
  child.stdin.end(input);
  return collect(child);
}

export function collect(child: ChildProcessWithoutNullStreams): Promise<CliProcessResult> {
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => {
    stdout += chunk;
  });
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
  });
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** Everything a stream has sent since this was called, and a way to wait for a pattern in it. */
export interface LiveOutput {
  text(): string;
  /** Resolves with all the output so far once `pattern` matches it, whenever that output arrived. */
  until(pattern: RegExp, timeoutMs?: number): Promise<string>;
}

export function liveOutput(stream: NodeJS.ReadableStream): LiveOutput {
  let seen = '';
  const waiters = new Set<() => void>();
  stream.on('data', (chunk: Buffer | string) => {
    seen += chunk.toString();
    for (const waiter of [...waiters]) waiter();
  });
  return {
    text: () => seen,
    until(pattern, timeoutMs = 20_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (!pattern.test(seen)) return;
          clearTimeout(timer);
          waiters.delete(check);
          resolve(seen);
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`timed out waiting for ${pattern}; saw:\n${seen}`));
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
  };
}

/** Resolves once `pattern` appears in what the stream sends from now on. */
export function waitForOutput(
  stream: NodeJS.ReadableStream,
  pattern: RegExp,
  timeoutMs = 20_000,
): Promise<string> {
  return liveOutput(stream).until(pattern, timeoutMs);
}

/**
 * `opsbot <argv>` run in this process, as `runCliProcess` runs it as a child: stdout and stderr together, the given
 * input on stdin, not interactive.
 */
export async function runCliInProcess(
  argv: string[],
  env: NodeJS.ProcessEnv,
  input = '',
): Promise<{ code: number; out: string }> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const stdin = new PassThrough();
  let out = '';
  const collect = (chunk: unknown) => {
    out += String(chunk);
  };
  stdout.on('data', collect);
  stderr.on('data', collect);
  stdin.end(input);
  const code = await runCli(argv, { env, stdout, stderr, stdin, interactive: false });
  return { code, out };
}
