// The server's entry: what `npm start` calls (bin/start.js, from the bundle or the sources), and bot/main.ts.
import { errorMessage } from '../agent/errors.js';
import { type Serving, serve } from './serve.js';

/** Starts the server. A start that fails prints why and sets exit code 2, and resolves to undefined. */
export async function runServer(env: NodeJS.ProcessEnv, argv: string[]): Promise<Serving | undefined> {
  try {
    return await serve({ env, argv });
  } catch (error) {
    process.stderr.write(`opsbot: ${errorMessage(error)}\n`);
    process.exitCode = 2;
    return undefined;
  }
}
