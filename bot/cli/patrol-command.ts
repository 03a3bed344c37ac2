// `opsbot patrol …`: `run <name>` makes a patrol's checks now and prints them, exiting non-zero when one fails
// (for a crontab or CI; it changes no stored state and posts nothing); the other verbs are the chat commands, and
// exit 1 when what they asked was not done (refused, unknown patrol, bad length).

import { nullChatPort } from '../../agent/chat-port.js';
import { systemClock } from '../../agent/clock.js';
import type { Principal } from '../../agent/principal.js';
import { PATROL_USAGE } from '../../scheduled/patrol-commands.js';
import { PatrolService } from '../../scheduled/patrol-service.js';
import { selfUrlOf } from '../../scheduled/self-address.js';
import type { Opsbot } from '../compose.js';
import { type CliContext, terminalOpsbot } from './cli-context.js';
import type { CliIo } from './cli-io.js';
import { EXIT } from './run-task.js';
import { green, red, yellow } from './terminal-output.js';

/** Exit codes of `opsbot patrol run`: every check passed, one failed, or one could not run at all. */
export const PATROL_EXIT = { passed: EXIT.ok, failed: EXIT.failed, error: 4 } as const;

export async function patrolCommand(
  context: CliContext,
  io: CliIo,
  args: string[],
  principal: Principal,
): Promise<number> {
  const opsbot = await terminalOpsbot(context, () => {});
  try {
    const patrols = cliPatrols(opsbot, context);
    if (args[0] === 'run') {
      const name = args[1];
      if (!name || !Object.hasOwn(opsbot.settings.patrols, name)) {
        io.stderr.write(`opsbot: ${await patrols.command(`show ${name ?? ''}`, principal)}\n`);
        return EXIT.usage;
      }
      return await checkNow(patrols, name, io);
    }
    if (args.length === 0 || args[0] === 'help') {
      io.stdout.write(`${PATROL_USAGE}\n`);
      return EXIT.ok;
    }
    // A refusal, an unknown patrol or a bad length exits 1, so a script never takes a steer not made for done.
    const answer = await patrols.answer(args.join(' '), principal);
    io.stdout.write(`${plain(answer.message)}\n`);
    return answer.ok ? EXIT.ok : EXIT.failed;
  } finally {
    await opsbot.close();
  }
}

function cliPatrols(opsbot: Opsbot, context: CliContext): PatrolService {
  const patrols = new PatrolService({
    patrols: opsbot.settings.patrols,
    kernel: opsbot.kernel,
    store: opsbot.store,
    chat: nullChatPort,
    // The CLI shows and steers every configured patrol; its clocks run in `npm start`.
    platformRunning: () => true,
    permissions: opsbot.settings.permissions,
    audit: opsbot.audit,
    clock: systemClock,
    logger: context.logger,
    keepHistoryMs: opsbot.settings.limits.patrol_history,
    owner: 'cli',
    // The server's address as its settings give it: the CLI checks the bot it sits beside.
    selfUrl: () => selfUrlOf(context.environment.HOST, context.environment.PORT),
  });
  patrols.prepare();
  return patrols;
}

async function checkNow(patrols: PatrolService, name: string, io: CliIo): Promise<number> {
  const result = await patrols.check(name);
  if (result.problem) {
    io.stdout.write(`${red('✘')} patrol ${name}: ${result.problem} (${result.run.id})\n`);
    return PATROL_EXIT.error;
  }
  const patrol = patrols.configured(name);
  let exit: number = PATROL_EXIT.passed;
  const lines = patrol.checks.map((check) => {
    const outcome = result.outcomes[check.id];
    if (!outcome) {
      exit = PATROL_EXIT.error;
      return `${yellow('?')} ${check.id} (${check.tool}): not run`;
    }
    if (outcome.kind === 'pass') return `${green('✔')} ${check.id} (${check.tool}): ${outcome.detail}`;
    if (outcome.kind === 'error') {
      exit = PATROL_EXIT.error;
      return `${yellow('⚠')} ${check.id} (${check.tool}) could not run: ${outcome.detail}`;
    }
    if (exit === PATROL_EXIT.passed) exit = PATROL_EXIT.failed;
    return `${red('✘')} ${check.id} (${check.tool}) ${outcome.severity}: ${outcome.detail}`;
  });
  io.stdout.write(`patrol ${name} (${result.run.id})\n${lines.join('\n')}\n`);
  if (result.summary) io.stdout.write(`\n${result.summary}\n`);
  return exit;
}

/** Chat replies mark names as `code`; the terminal shows them plain. */
function plain(text: string): string {
  return text.replace(/`([^`\n]+)`/g, '$1');
}
