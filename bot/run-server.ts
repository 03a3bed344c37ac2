// The server's entry: what `npm start` calls (bin/start.js, from the bundle), and bot/main.ts (from the sources).
import { errorMessage } from '../agent/errors.js';
import { type Serving, serve } from './serve.js';

export interface RunServerOptions {
  /** Which program runs, for the start-up log (bin/program.js says it for the bundle). */
  program?: string;
}

/** Starts the server. A start that fails prints why and sets exit code 2, and resolves to undefined. */
export async function runServer(
  env: NodeJS.ProcessEnv,
  argv: string[],
  options: RunServerOptions = {},
): Promise<Serving | undefined> {
  try {
    return await serve({ env, argv, ...options });
  } catch (error) {
    process.stderr.write(`opsbot: ${errorMessage(error)}\n`);
    process.exitCode = 2;
    return undefined;
  }
}
