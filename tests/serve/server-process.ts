// `npm start` as a child process, as a person or a service manager starts it, on its own SQLite file in `dir`.
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { join } from 'node:path';
import { type CliProcessResult, collect, type LiveOutput, liveOutput } from '../cli/cli-process.js';

export interface ServerProcess {
  child: ChildProcessWithoutNullStreams;
  /** What it printed and its exit code, once it has ended. */
  done: Promise<CliProcessResult>;
  /** Its standard output as it comes. */
  output: LiveOutput;
}

/** Starts `node <argv>` on port 0, with nothing else from the test runner's environment but `env`. */
export function startServerProcess(argv: string[], dir: string, env: NodeJS.ProcessEnv = {}): ServerProcess {
  const child = spawn(process.execPath, argv, {
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      PORT: '0',
      OPSBOT_DATA_DIR: dir,
      OPSBOT_STORE_URL: `sqlite://${join(dir, 'opsbot.sqlite')}`,
      ...env,
    },
    stdio: 'pipe',
  });
  child.stdin.end();
  return { child, done: collect(child), output: liveOutput(child.stdout) };
}
