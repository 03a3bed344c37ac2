// The server from its TypeScript sources (`node --import tsx bot/main.ts`), as the tests and the scale bench start
// it without a build. `npm start` runs the same runServer from the bundle (bin/start.js).
import { runServer } from './run-server.js';

await runServer(process.env, process.argv.slice(2), {
  program: 'TypeScript sources through tsx (bot/main.ts)',
});
