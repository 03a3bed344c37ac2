// `npm run eval -- [--live [--record]] [--update-lock] [--filter <glob>] [--repeat N]` (see eval-command.ts).
import { evalCommand } from './eval-command.js';

evalCommand(process.argv.slice(2), process.env, {
  out: (text) => console.log(text),
  err: (text) => console.error(text),
  progress: (text) => process.stderr.write(text),
}).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exitCode = 2;
  },
);
