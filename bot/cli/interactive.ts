// Interactive mode: a prompt where each line is a task, in one terminal thread, until EOF or "exit".
import type { Principal } from '../../agent/principal.js';
import { installGracefulShutdown } from '../shutdown.js';
import { type CliContext, terminalOpsbot } from './cli-context.js';
import { type CliIo, LineReader } from './cli-io.js';
import { runTask } from './run-task.js';
import { bold, dim } from './terminal-output.js';

export async function interactive(
  context: CliContext,
  io: CliIo,
  principal: Principal,
  engine?: 'react' | 'command',
): Promise<number> {
  const write = (line: string) => io.stdout.write(`${line}\n`);
  const opsbot = await terminalOpsbot(context, write);
  const reader = new LineReader(io);
  const uninstall = installGracefulShutdown({
    logger: context.logger,
    steps: [
      { name: 'input', stop: async () => reader.close() },
      { name: 'runs (finishing the current step)', stop: () => opsbot.kernel.shutdown() },
      { name: 'store', stop: () => opsbot.store.close() },
    ],
  });
  const recovered = await opsbot.kernel.recover();
  write(bold(`opsbot — interactive, as ${principal.displayName} (${principal.roles.join(', ')})`));
  for (const line of opsbot.describe()) write(dim(`  ${line}`));
  if (recovered.outcomeUnknown + recovered.continued > 0) {
    write(
      dim(`  recovered runs: ${recovered.continued} continued, ${recovered.outcomeUnknown} outcome unknown`),
    );
  }
  write(
    dim(
      opsbot.model
        ? '  Type a task, or "exit".'
        : '  Type a command such as `help` or `system_stats`, or "exit".',
    ),
  );
  let last = 0;
  try {
    for (;;) {
      const line = await reader.next(bold('ops> '), io);
      if (line === undefined || /^(exit|quit)$/i.test(line.trim())) break;
      if (line.trim() === '') continue;
      last = await runTask(context, io, {
        task: line,
        principal,
        reader,
        opsbot,
        ...(engine ? { engine } : {}),
      });
    }
  } finally {
    uninstall();
    reader.close();
    await opsbot.close();
  }
  return last;
}
