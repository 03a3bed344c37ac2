// `opsbot run "<task>"`: one task as the local operator, steps printed as they happen, questions on stdin.
import { randomBytes } from 'node:crypto';
import type { Conversation } from '../../agent/conversation.js';
import { errorMessage } from '../../agent/errors.js';
import type { Kernel } from '../../agent/kernel.js';
import { AuditLog, auditActor } from '../../agent/policy/audit-log.js';
import { TaskRateLimiter } from '../../agent/policy/task-rate-limiter.js';
import type { Principal } from '../../agent/principal.js';
import type { Run } from '../../agent/run.js';
import { finishedWithProblem } from '../../agent/run-state-words.js';
import type { Opsbot } from '../compose.js';
import { type CliContext, terminalOpsbot } from './cli-context.js';
import { type CliIo, LineReader } from './cli-io.js';
import { dim, formatEvent } from './terminal-output.js';

export const EXIT = { ok: 0, failed: 1, usage: 2, waiting: 3 } as const;

export interface RunTaskOptions {
  task: string;
  principal: Principal;
  engine?: 'react' | 'command';
  reader?: LineReader;
  opsbot?: Opsbot;
}

export async function runTask(context: CliContext, io: CliIo, options: RunTaskOptions): Promise<number> {
  const write = (line: string) => io.stdout.write(`${line}\n`);
  const opsbot = options.opsbot ?? (await terminalOpsbot(context, write));
  const stop = followRuns(opsbot.kernel, write);
  const reader = options.reader ?? new LineReader(io);
  try {
    const conversation: Conversation = {
      platform: 'cli',
      channelId: 'terminal',
      threadId: `cli-${randomBytes(4).toString('hex')}`,
    };
    const refusal = await overRate(context, opsbot, options.principal, conversation);
    if (refusal !== undefined) {
      io.stderr.write(`opsbot: ${refusal}\n`);
      return EXIT.failed;
    }
    const runId = await opsbot.kernel.start({
      text: options.task,
      principal: options.principal,
      conversation,
      ...(options.engine ? { engine: options.engine } : {}),
    });
    let run = await opsbot.kernel.settled(runId);
    while (run.status === 'waiting_for_user') {
      const answer = await askOnTerminal(run, reader, io);
      if (answer === undefined) {
        write(
          dim(
            `Run ${run.id} is waiting for an answer. Answer it later with: opsbot answer ${run.id} "<answer>"`,
          ),
        );
        return EXIT.waiting;
      }
      await opsbot.kernel.answer(run.id, answer, options.principal);
      run = await opsbot.kernel.settled(run.id);
    }
    if (run.status === 'waiting_for_approval') {
      write(
        dim(
          `Run ${run.id} is waiting for approval. An approver can run: opsbot approve ${run.approval.approvalId} --as <name>`,
        ),
      );
      return EXIT.waiting;
    }
    write(
      dim(
        `run ${run.id}: ${run.status} · ${plural(run.step, 'step')} · ${plural(run.usage.toolCalls, 'tool call')} · ${plural(run.usage.promptTokens + run.usage.completionTokens, 'token')}`,
      ),
    );
    return run.status === 'finished' && !finishedWithProblem(run) ? EXIT.ok : EXIT.failed;
  } catch (error) {
    io.stderr.write(`opsbot: ${context.redactor.redact(errorMessage(error))}\n`);
    return EXIT.failed;
  } finally {
    stop();
    if (!options.reader) reader.close();
    if (!options.opsbot) await opsbot.close();
  }
}

/**
 * The same per-person limit as chat (tasks_per_minute), counted in the shared store under the person's key, so
 * `local:bob` in the playground and `opsbot run --as bob` draw on one count.
 */
async function overRate(
  context: CliContext,
  opsbot: Opsbot,
  principal: Principal,
  conversation: Conversation,
): Promise<string | undefined> {
  const limiter = new TaskRateLimiter(opsbot.kernel.store, {
    limit: context.loaded.settings.permissions.tasks_per_minute,
  });
  const rate = await limiter.take(principal);
  if (rate.allowed) return undefined;
  await new AuditLog(opsbot.kernel.store).record({
    kind: 'rate_limited',
    actor: auditActor(principal),
    conversation,
    reason: rate.message,
  });
  return rate.message;
}

/** Prints each run's new steps as they happen; returns the function that stops following. */
export function followRuns(kernel: Kernel, write: (line: string) => void): () => void {
  const printed = new Map<string, number>();
  return kernel.onRunChange((run) => {
    const from = printed.get(run.id) ?? run.events.length - 1;
    for (const event of run.events.slice(Math.max(0, from))) {
      const line = formatEvent(event);
      if (line) write(line);
    }
    printed.set(run.id, run.events.length);
  });
}

async function askOnTerminal(
  run: Extract<Run, { status: 'waiting_for_user' }>,
  reader: LineReader,
  io: CliIo,
): Promise<string | undefined> {
  const { choices } = run.question;
  const line = await reader.next('> ', io);
  if (line === undefined) return undefined;
  const index = Number(line.trim());
  if (Number.isInteger(index) && index >= 1 && index <= choices.length) return choices[index - 1];
  return line;
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}
