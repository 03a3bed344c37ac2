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
import { modelEngineFor } from '../config/engine-settings.js';
import { type CliContext, terminalOpsbot } from './cli-context.js';
import { type CliIo, LineReader } from './cli-io.js';
import { dim, formatEvent } from './terminal-output.js';

/** What scripts can rely on; `opsbot --help` and docs/cli.md list the same codes. */
export const EXIT = { ok: 0, failed: 1, usage: 2, waiting: 3 } as const;

/**
 * 0 when the run finished well, 1 when it failed or finished with a problem (a failed check or a failed write or
 * danger action), 3 when it waits.
 */
export function exitCodeOf(run: Run): number {
  if (run.status === 'finished') return finishedWithProblem(run) ? EXIT.failed : EXIT.ok;
  return run.status.startsWith('waiting') ? EXIT.waiting : EXIT.failed;
}

export interface RunTaskOptions {
  task: string;
  principal: Principal;
  engine?: 'react' | 'plan' | 'command';
  reader?: LineReader;
  opsbot?: Opsbot;
  /** Told the new run's id as soon as it exists (interactive mode watches it for changes made elsewhere). */
  onStarted?: (runId: string) => void;
}

/** `reader` and `opsbot` are shared by interactive mode, which also prints the session's steps itself. */
export async function runTask(context: CliContext, io: CliIo, options: RunTaskOptions): Promise<number> {
  const write = (line: string) => io.stdout.write(`${line}\n`);
  const opsbot = options.opsbot ?? (await terminalOpsbot(context, write));
  const stop = options.opsbot ? () => {} : followRuns(opsbot.kernel, write);
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
      ...(options.engine
        ? { engine: options.engine }
        : { modelEngine: modelEngineFor(context.loaded.settings.engines, conversation) }),
    });
    options.onStarted?.(runId);
    return await carryOn(opsbot, io, runId, options.principal, reader);
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
 * Waits until the run ends or waits for someone, asking its questions on the terminal, then says how it stands
 * and returns the exit code.
 */
export async function carryOn(
  opsbot: Opsbot,
  io: CliIo,
  runId: string,
  principal: Principal,
  reader: LineReader | undefined,
): Promise<number> {
  const write = (line: string) => io.stdout.write(`${line}\n`);
  let run = await opsbot.kernel.settled(runId);
  while (run.status === 'waiting_for_user') {
    // Without a reader (a decision on someone else's run), the question is theirs to answer, not this prompt's.
    const answer = reader ? await askOnTerminal(reader, io) : undefined;
    if (answer === undefined) {
      write(
        dim(
          `Run ${run.id} is waiting for ${run.principal.displayName}'s answer. Answer it later with: opsbot answer ${run.id} "<answer>"`,
        ),
      );
      return EXIT.waiting;
    }
    await opsbot.kernel.answer(run.id, answer, principal);
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
      `run ${run.id}: ${finishedWithProblem(run) ? 'finished, with a problem' : run.status} · ${plural(run.step, 'step')} · ${plural(run.usage.toolCalls, 'tool call')} · ${plural(run.usage.promptTokens + run.usage.completionTokens, 'token')}`,
    ),
  );
  return exitCodeOf(run);
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

/** The line as typed: the kernel reads a bare choice number as that choice, as it does everywhere. */
async function askOnTerminal(reader: LineReader, io: CliIo): Promise<string | undefined> {
  return reader.next('> ', io);
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}
