// The server's entry: what `npm start` calls (bin/start.js, from the bundle), and bot/main.ts (from the sources).
import { errorMessage } from '../agent/errors.js';
import { environmentWarnings } from './config/environment.js';
import { type Serving, serve } from './serve.js';
import { startUpBanner } from './start-up-banner.js';

export interface RunServerOptions {
  /** Which program runs, for the start-up banner (bin/program.js says it for the bundle). */
  program?: string;
}

/**
 * Starts the server and prints what started, with any settings that would be silently ignored. A start that
 * fails prints why and sets exit code 2, and resolves to undefined.
 */
export async function runServer(
  env: NodeJS.ProcessEnv,
  argv: string[],
  options: RunServerOptions = {},
): Promise<Serving | undefined> {
  try {
    const serving = await serve({ env, argv });
    const startUp = options.program ? { ...serving.startUp, program: options.program } : serving.startUp;
    for (const line of startUpBanner(startUp)) serving.logger.info({}, line);
    for (const warning of [...environmentWarnings(env), ...serving.warnings])
      serving.logger.warn({}, warning);
    return serving;
  } catch (error) {
    process.stderr.write(`opsbot: ${errorMessage(error)}\n`);
    process.exitCode = 2;
    return undefined;
  }
}
