// Interactive mode: a prompt where each line is one of its own commands (help, status, approve …) or a task,
// until EOF or "exit"; runs moved on elsewhere (an approval in another terminal) show up here too.
import type { Principal } from '../../agent/principal.js';
import { installGracefulShutdown } from '../shutdown.js';
import { type CliContext, terminalOpsbot } from './cli-context.js';
import { type CliIo, LineReader } from './cli-io.js';
import { parseInteractiveCommand, runInteractiveCommand } from './interactive-commands.js';
import { runTask } from './run-task.js';
import { SessionRuns } from './session-runs.js';
import { bold, dim } from './terminal-output.js';

/** How often runs of this session that wait are looked up in the store, for changes made elsewhere. */
const OUTSIDE_CHANGES_POLL_MS = 1_000;

export async function interactive(
  context: CliContext,
  io: CliIo,
  principal: Principal,
  engine?: 'react' | 'plan' | 'command',
): Promise<number> {
  const write = (line: string) => io.stdout.write(`${line}\n`);
  const opsbot = await terminalOpsbot(context, write);
  const reader = new LineReader(io);
  const prompt = bold('ops> ');
  const session = new SessionRuns(opsbot.kernel, write, {
    pollMs: OUTSIDE_CHANGES_POLL_MS,
    onOutsideChange: () => io.stdout.write(prompt),
  });
  // Ctrl-C's shutdown and the end of the loop below both close opsbot: whichever comes first does it, once.
  let closing: Promise<void> | undefined;
  const close = () => (closing ??= opsbot.close());
  const uninstall = installGracefulShutdown({
    logger: context.logger,
    steps: [
      { name: 'input', stop: async () => reader.close() },
      { name: 'runs (finishing the current step), then the store', stop: close },
    ],
  });
  const recovered = await opsbot.kernel.recover();
  write(bold(`opsbot — interactive, as ${principal.displayName} (${principal.roles.join(', ')})`));
  for (const line of opsbot.describe()) write(dim(`  ${line}`));
  for (const warning of [...context.warnings, ...opsbot.warnings]) write(dim(`  warning: ${warning}`));
  if (recovered.outcomeUnknown + recovered.continued > 0) {
    write(
      dim(`  recovered runs: ${recovered.continued} continued, ${recovered.outcomeUnknown} outcome unknown`),
    );
  }
  write(
    dim(
      opsbot.model
        ? '  Type a task, `help` for commands and tools, or "exit".'
        : '  Type a command such as `system_stats`, `help` for commands and tools, or "exit".',
    ),
  );
  let last = 0;
  try {
    for (;;) {
      const line = await reader.next(prompt, io);
      if (line === undefined || /^(exit|quit)$/i.test(line.trim())) break;
      if (line.trim() === '') continue;
      const command = parseInteractiveCommand(line);
      last = command
        ? await runInteractiveCommand(command, { opsbot, io, principal, reader, session })
        : await session.busy(() =>
            runTask(context, io, {
              task: line,
              principal,
              reader,
              opsbot,
              onStarted: (runId) => session.watch(runId),
              ...(engine ? { engine } : {}),
            }),
          );
    }
  } finally {
    uninstall();
    session.close();
    reader.close();
    await close();
  }
  return last;
}
