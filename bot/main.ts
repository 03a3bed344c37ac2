// `npm start`: runs opsbot. Until the chat adapters and the playground land, this is the CLI's interactive mode.

import { processIo } from './cli/cli-io.js';
import { runCli } from './cli/main.js';

process.exitCode = await runCli(process.argv.slice(2), processIo());
