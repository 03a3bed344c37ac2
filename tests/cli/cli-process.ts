// Runs the real `opsbot` command (bin/opsbot.js) as a child process, as a user's shell or script would.
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

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

/** Resolves once `pattern` has appeared in everything the stream sent so far. */
export function waitForOutput(
  stream: NodeJS.ReadableStream,
  pattern: RegExp,
  timeoutMs = 20_000,
): Promise<string> {
  let seen = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`timed out waiting for ${pattern}; saw:\n${seen}`)),
      timeoutMs,
    );
    const onData = (chunk: Buffer | string) => {
      seen += chunk.toString();
      if (pattern.test(seen)) {
        clearTimeout(timer);
        stream.off('data', onData);
        resolve(seen);
      }
    };
    stream.on('data', onData);
  });
}
