// `npm start`: runs opsbot. Until the chat adapters and the playground land, this is the CLI's interactive mode.
import { runCli } from './cli/main.js';
import { processIo } from './cli/cli-io.js';

process.exitCode = await runCli(process.argv.slice(2), processIo());
