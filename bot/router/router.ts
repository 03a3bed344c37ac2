// Routes each ChatEvent: a new task, an answer to a waiting run, an approval click, or a router command.
import type { ChatPort } from '../../agent/chat-port.js';
import { type Clock, systemClock } from '../../agent/clock.js';
import { type Conversation, conversationKey } from '../../agent/conversation.js';
import { errorMessage, OpsbotError } from '../../agent/errors.js';
import type { Kernel } from '../../agent/kernel.js';
import type { Logger } from '../../agent/logger.js';
import { AuditLog, auditActor } from '../../agent/policy/audit-log.js';
import { TaskRateLimiter } from '../../agent/policy/task-rate-limiter.js';
import { ThreadLock } from '../../agent/policy/thread-lock.js';
import { type Principal, principalKey, samePrincipal } from '../../agent/principal.js';
import { isTerminal, type Run } from '../../agent/run.js';
import { resolveAnswerChoice } from '../chat/answer-choice.js';
import type { ChatEvent, RouterReply } from '../chat/chat-event.js';
import type { Settings } from '../config/settings-schema.js';
import { parseRouterCommand, runRouterCommand } from './router-commands.js';
import { ThreadQueue } from './thread-queue.js';

export interface RouterOptions {
  kernel: Kernel;
  settings: Settings;
  chat: ChatPort;
  logger: Logger;
  clock?: Clock;
  /** The slash command people type, for help text. */
  slashCommand?: string;
}

export class Router {
  private readonly kernel: Kernel;
  private readonly clock: Clock;
  private readonly limiter: TaskRateLimiter;
  private readonly threads: ThreadLock;
  private readonly queue: ThreadQueue;
  private readonly audit: AuditLog;

  constructor(private readonly options: RouterOptions) {
    this.kernel = options.kernel;
    this.clock = options.clock ?? systemClock;
    const store = this.kernel.store;
    this.limiter = new TaskRateLimiter(store, {
      limit: options.settings.permissions.tasks_per_minute,
      clock: this.clock,
    });
    this.threads = new ThreadLock(store, this.kernel.limits.maxWallTimeMs + 60 * 60_000);
    this.queue = new ThreadQueue(store);
    this.audit = new AuditLog(store, { clock: this.clock });
    // A run may end where this router is not waiting on it (continued after a restart, or by another
    // replica's sweep): its thread is freed and the queue moves on all the same.
    this.kernel.onRunChange((run) => {
      if (this.awaiting.has(conversationKey(run.conversation)) || !threadIsFree(run)) return;
      this.afterRun(run).catch((error) =>
        options.logger.warn(
          { runId: run.id, err: errorMessage(error) },
          'could not start the next queued task',
        ),
      );
    });
  }

  /** Threads where this router is awaiting the kernel, and so frees the thread itself when the call returns. */
  private readonly awaiting = new Map<string, number>();

  private async awaitKernel<T>(conversation: Conversation, call: () => Promise<T>): Promise<T> {
    const key = conversationKey(conversation);
    this.awaiting.set(key, (this.awaiting.get(key) ?? 0) + 1);
    try {
      return await call();
    } finally {
      const left = (this.awaiting.get(key) ?? 1) - 1;
      if (left === 0) this.awaiting.delete(key);
      else this.awaiting.set(key, left);
    }
  }

  /** Handles one event to the end; the chat intake (bot/chat/event-intake.ts) has acked and deduped it. */
  async handle(event: ChatEvent): Promise<RouterReply> {
    try {
      switch (event.kind) {
        case 'action':
          return await this.onAction(event);
        case 'command':
          return await this.onCommand(event);
        case 'message':
          return await this.onMessage(event);
      }
    } catch (error) {
      const message =
        error instanceof OpsbotError
          ? error.message
          : 'Something went wrong on my side; the details are in the bot log.';
      this.options.logger.error(
        { err: errorMessage(error), eventId: event.eventId },
        'could not handle a chat event',
      );
      return { ephemeral: message };
    }
  }

  private async onAction(event: Extract<ChatEvent, { kind: 'action' }>): Promise<RouterReply> {
    if (event.action === 'answer') {
      let answer = event.value ?? '';
      if (event.choice !== undefined) {
        const waiting = await this.kernel.runs.find(event.target).catch(() => undefined);
        const choices = waiting?.pending?.kind === 'question' ? waiting.pending.choices : undefined;
        const resolved = resolveAnswerChoice(choices, event.choice);
        if (!resolved.ok) return { ephemeral: resolved.reason };
        answer = resolved.answer;
      }
      const run = await this.awaitKernel(event.conversation, () =>
        this.kernel.resume(event.target, answer, event.principal),
      );
      await this.afterRun(run);
      return {};
    }
    const decision = event.action;
    const click = await this.awaitKernel(event.conversation, () =>
      this.kernel.decideApproval(event.target, event.principal, decision),
    );
    if (click.settled && 'approval' in click.result && click.result.approval) {
      const run = await this.kernel.runs.find(click.result.approval.runId);
      if (run) await this.afterRun(run);
    }
    return click.settled ? {} : { ephemeral: click.message };
  }

  private async onCommand(event: Extract<ChatEvent, { kind: 'command' }>): Promise<RouterReply> {
    const command = parseRouterCommand(event.text);
    if (command || event.text.trim() === '') {
      return {
        ephemeral: await this.command(command ?? { name: 'help' }, event.principal, event.conversation),
      };
    }
    // `/ops <task>`: show the task in the channel, and work in that message's thread.
    const ref = await this.options.chat.post(
      { ...event.conversation, threadId: undefined },
      { kind: 'text', text: `${event.principal.displayName} asked: ${event.text}` },
    );
    const conversation = { ...event.conversation, threadId: ref.messageId };
    await this.startTask(event.text, event.principal, conversation, event.eventId);
    return {};
  }

  private async onMessage(event: Extract<ChatEvent, { kind: 'message' }>): Promise<RouterReply> {
    const { conversation, principal } = event;
    // One read of the thread's runs answers both questions: is a run waiting here, and has the bot worked here.
    const threadRunIds = await this.kernel.runs.threadRunIds(conversation);
    const history = threadRunIds.length > 0;
    if (!event.mentioned && !event.direct && !history) return {};
    const waiting = await this.waitingForUser(threadRunIds);
    if (waiting && (samePrincipal(waiting.principal, principal) || this.kernel.policy.isAdmin(principal))) {
      const run = await this.awaitKernel(conversation, () =>
        this.kernel.resume(waiting.id, event.text, principal),
      );
      await this.afterRun(run);
      return {};
    }
    const command = parseRouterCommand(event.text);
    if (command) {
      const text = await this.command(command, principal, conversation);
      await this.options.chat.post(conversation, { kind: 'text', text });
      return {};
    }
    await this.startTask(event.text, principal, conversation, event.eventId);
    return {};
  }

  private async command(
    command: NonNullable<ReturnType<typeof parseRouterCommand>>,
    principal: Principal,
    conversation: Conversation,
  ) {
    return runRouterCommand(command, {
      kernel: this.kernel,
      settings: this.options.settings,
      principal,
      conversation,
      slashCommand: this.options.slashCommand ?? '/ops',
      now: this.clock.now(),
    });
  }

  /** Starts a task unless the person is over their rate or the thread is busy (then it queues). */
  private async startTask(
    text: string,
    principal: Principal,
    conversation: Conversation,
    eventId: string,
    queued = false,
  ): Promise<void> {
    const chat = this.options.chat;
    if (!queued) {
      const rate = await this.limiter.take(principalKey(principal));
      if (!rate.allowed) {
        await this.audit.record({
          kind: 'rate_limited',
          actor: auditActor(principal),
          conversation,
          reason: rate.message,
        });
        await chat.post(conversation, { kind: 'text', text: rate.message, tone: 'warning' });
        return;
      }
    }
    // The thread is held under the run's own id, so only that run's end can free it.
    const runId = this.kernel.newRunId();
    if (!(await this.threads.acquire(conversation, runId))) {
      const position = await this.queue.push(conversation, { text, principal, eventId });
      await this.audit.record({
        kind: 'thread_busy',
        actor: auditActor(principal),
        conversation,
        reason: `queued at position ${position}`,
      });
      await chat.post(conversation, {
        kind: 'text',
        tone: 'info',
        text: `I'm still working on the earlier request in this thread. Yours is queued (position ${position}) and will start when it is done.`,
      });
      return;
    }
    let run: Run;
    try {
      run = await this.awaitKernel(conversation, () =>
        this.kernel.start({ text, principal, conversation, runId }),
      );
    } catch (error) {
      // The run could not start (the store is down, or opsbot is stopping): the thread must not stay locked.
      await this.threads.release(conversation, runId).catch(() => false);
      throw error;
    }
    await this.afterRun(run);
  }

  /** When a run no longer needs the thread, frees it and starts the next queued task there. */
  private async afterRun(run: Run): Promise<void> {
    if (!threadIsFree(run)) return;
    // Compare-and-delete by run id: whoever frees the thread first (this call, or the run-change listener)
    // moves the queue on; the other finds nothing to do.
    if (!(await this.threads.release(run.conversation, run.id))) return;
    const next = await this.queue.shift(run.conversation);
    if (next) await this.startTask(next.text, next.principal, run.conversation, next.eventId, true);
  }

  /** The latest of the thread's runs that waits for an answer, looking back three runs at most. */
  private async waitingForUser(threadRunIds: string[]): Promise<Run | undefined> {
    for (const runId of threadRunIds.slice(-3).reverse()) {
      const run = await this.kernel.runs.find(runId).catch(() => undefined);
      if (run?.status === 'waiting_for_user') return run;
    }
    return undefined;
  }
}

/** A run stops needing its thread when it ends, or when it waits for a person (their reply answers it). */
function threadIsFree(run: Run): boolean {
  return isTerminal(run.status) || run.status === 'waiting_for_user';
}
