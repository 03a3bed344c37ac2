// `npm start` from the sources (`node --import tsx bot/main.ts`): the HTTP server with the playground, and the chat
// adapters whose tokens are set. bin/start.js calls the same runServer, from the bundle when it is fresh.
import { runServer } from './run-server.js';

await runServer(process.env, process.argv.slice(2));
