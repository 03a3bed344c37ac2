// The server's entry: what `npm start` calls (bin/start.js, from the bundle or the sources), and bot/main.ts.
import { errorMessage } from '../agent/errors.js';
import { environmentWarnings } from './config/environment.js';
import { type Serving, serve } from './serve.js';
import { startUpBanner } from './start-up-banner.js';

/**
 * Starts the server and prints what started, with any settings that would be silently ignored. A start that
 * fails prints why and sets exit code 2, and resolves to undefined.
 */
export async function runServer(env: NodeJS.ProcessEnv, argv: string[]): Promise<Serving | undefined> {
  try {
    const serving = await serve({ env, argv });
    for (const line of startUpBanner(serving.startUp)) serving.logger.info({}, line);
    for (const warning of environmentWarnings(env)) serving.logger.warn({}, warning);
    return serving;
  } catch (error) {
    process.stderr.write(`opsbot: ${errorMessage(error)}\n`);
    process.exitCode = 2;
    return undefined;
  }
}
