// `npm start`: runs opsbot: the HTTP server with the playground, and the chat adapters whose tokens are set.
import { errorMessage } from '../agent/errors.js';
import { serve } from './serve.js';

try {
  await serve({ env: process.env, argv: process.argv.slice(2) });
} catch (error) {
  process.stderr.write(`opsbot: ${errorMessage(error)}\n`);
  process.exitCode = 2;
}
