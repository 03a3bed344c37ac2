// Routes each ChatEvent: a new task, an answer to a waiting run, an approval click, or a router command.
import { type Clock, systemClock } from '../../agent/clock.js';
import type { Conversation } from '../../agent/conversation.js';
import { errorMessage, isStoreUnavailable, OpsbotError } from '../../agent/errors.js';
import type { Kernel } from '../../agent/kernel.js';
import type { Logger } from '../../agent/logger.js';
import { AuditLog, auditActor } from '../../agent/policy/audit-log.js';
import { clickPlaceRefusal } from '../../agent/policy/click-place.js';
import { parseDuration } from '../../agent/policy/duration.js';
import { TaskRateLimiter } from '../../agent/policy/task-rate-limiter.js';
import { type Principal, personKey } from '../../agent/principal.js';
import type { Run } from '../../agent/run.js';
import type { ModelEngineKind } from '../../agent/run-engine-kind.js';
import { GONE_CARD_TEXT, type StoreResetWatch } from '../../agent/store-reset-watch.js';
import type { PatrolControl } from '../../scheduled/patrol-control.js';
import type { AlertButtons } from '../alerts/alert-buttons.js';
import { resolveAnswerChoice } from '../chat/answer-choice.js';
import type { ChatEvent, RouterReply } from '../chat/chat-event.js';
import { SOMETHING_WENT_WRONG, STORE_UNREACHABLE_REPLY } from '../chat/event-intake.js';
import { storeFailureReply } from '../chat/store-failure-reply.js';
import { modelEngineFor } from '../config/engine-settings.js';
import type { Settings } from '../config/settings-schema.js';
import { parsePlanCommand, planUsage } from './plan-command.js';
import { parseRouterCommand, runRouterCommand } from './router-commands.js';
import { STOP_WORDS, stopWordsReply } from './stop-words.js';

export interface RouterOptions {
  kernel: Kernel;
  settings: Settings;
  logger: Logger;
  clock?: Clock;
  /** The slash command people type, for help text. */
  slashCommand?: string;
  /** Report buttons and `/ops patrol …`, when patrols run in this process. */
  patrols?: PatrolControl;
  /** Reads the store's epoch again when a click finds no approval: a reset is then said in its threads. */
  storeReset?: Pick<StoreResetWatch, 'check'>;
  /** Alert group buttons, when the Alertmanager receiver is on. */
  alerts?: Pick<AlertButtons, 'act'>;
}

export class Router {
  private readonly kernel: Kernel;
  private readonly clock: Clock;
  private readonly limiter: TaskRateLimiter;
  private readonly audit: AuditLog;

  constructor(private readonly options: RouterOptions) {
    this.kernel = options.kernel;
    this.clock = options.clock ?? systemClock;
    const store = this.kernel.store;
    this.limiter = new TaskRateLimiter(store, {
      limit: options.settings.permissions.tasks_per_minute,
      clock: this.clock,
    });
    this.audit = new AuditLog(store, { clock: this.clock });
  }

  /**
   * Handles one event the chat intake (bot/chat/event-intake.ts) has acked and deduped: starts, answers,
   * decides or cancels, and returns at once with any ephemeral text. The kernel's worker steps the runs.
   */
  async handle(event: ChatEvent): Promise<RouterReply> {
    const reply = await this.route(event);
    // A private reply is outbound text too: it is redacted like every message the kernel posts.
    return reply.ephemeral === undefined ? reply : { ephemeral: this.kernel.redact(reply.ephemeral) };
  }

  private async route(event: ChatEvent): Promise<RouterReply> {
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
      // The store's own message names keys and its address: for the log, not for chat.
      // A refused write (a full disk) is named, with what was not recorded, so the person knows to try again.
      const message = isStoreUnavailable(error)
        ? (storeFailureReply(error, event) ?? STORE_UNREACHABLE_REPLY)
        : error instanceof OpsbotError
          ? error.message
          : SOMETHING_WENT_WRONG;
      // A refusal or a bad request is the rules working, told to the person: INFO. ERROR is for faults.
      if (error instanceof OpsbotError && error.fault === 'caller') {
        this.options.logger.info(
          { reason: error.message, code: error.code, eventId: event.eventId },
          'refused a chat request',
        );
      } else {
        this.options.logger.error(
          { err: errorMessage(error), eventId: event.eventId },
          'could not handle a chat event',
        );
      }
      return { ephemeral: message };
    }
  }

  private async onAction(event: Extract<ChatEvent, { kind: 'action' }>): Promise<RouterReply> {
    if (event.action === 'answer') {
      let answer = event.value ?? '';
      const waiting = await this.kernel.runs.find(event.target).catch(() => undefined);
      // Like an approval, a question's card is answered only where it was posted.
      const misplaced = waiting ? clickPlaceRefusal(waiting.conversation, event.conversation) : undefined;
      if (misplaced) return { ephemeral: misplaced };
      if (event.choice !== undefined) {
        // A button carries the choice's number; its text is read from the question the run waits on now.
        const choices = waiting?.status === 'waiting_for_user' ? waiting.question.choices : undefined;
        const resolved = resolveAnswerChoice(choices, event.choice);
        if (!resolved.ok) return { ephemeral: resolved.reason };
        answer = resolved.answer;
      }
      await this.kernel.answer(event.target, answer, event.principal);
      return {};
    }
    if (event.action === 'cancel') {
      const run = await this.kernel.runs.find(event.target).catch(() => undefined);
      // Like an answer, a Cancel click counts only where the run's card is.
      const misplaced = run ? clickPlaceRefusal(run.conversation, event.conversation) : undefined;
      if (misplaced) return { ephemeral: misplaced };
      return { ephemeral: (await this.kernel.cancel(event.target, event.principal)).message };
    }
    if (
      event.action === 'alert_ack' ||
      event.action === 'alert_investigate' ||
      event.action === 'alert_silence'
    ) {
      if (!this.options.alerts)
        return { ephemeral: 'Alerts are not on in this opsbot (OPSBOT_ALERTS_TOKEN).' };
      const { action, target, value, principal } = event;
      return {
        ephemeral: await this.options.alerts.act({
          action,
          target,
          principal,
          ...(value !== undefined ? { value } : {}),
        }),
      };
    }
    if (event.action !== 'approve' && event.action !== 'deny') {
      if (!this.options.patrols) return { ephemeral: 'Patrols are not running in this opsbot.' };
      const { action, target, value, principal } = event;
      return {
        ephemeral: await this.options.patrols.act({
          action,
          target,
          principal,
          ...(value !== undefined ? { value } : {}),
        }),
      };
    }
    const grant = event.grant
      ? {
          grantForMs: parseDuration(event.grant.for),
          ...(event.grant.pattern ? { grantPattern: event.grant.pattern } : {}),
        }
      : {};
    // A click decides only where its card is: the kernel refuses one from another channel or workspace.
    const options = { ...grant, clickedIn: event.conversation };
    const click = await this.kernel.decideApproval(
      event.target,
      event.principal,
      event.action,
      event.reason,
      options,
    );
    if (click.result.kind === 'not_found') return this.gone(event, click.message);
    // A decision shows on the card; a first of two approvals changes only a line there, and a grant's id is for
    // its maker to revoke it by, so those clickers are told too.
    return click.settled && click.result.kind !== 'counted' && !click.grant
      ? {}
      : { ephemeral: click.message };
  }

  /**
   * A click on an approval that no longer exists: the store may have been reset (the watch then says so in the
   * threads it knows), or the run expired and is no longer kept. Either way its card is closed, with why.
   */
  private async gone(event: Extract<ChatEvent, { kind: 'action' }>, notFound: string): Promise<RouterReply> {
    const { logger } = this.options;
    await this.options.storeReset
      ?.check()
      .catch((error) => logger.warn({ err: errorMessage(error) }, 'could not read the store epoch'));
    // A click carrying another card's id (a forged value) must not close a card that still waits.
    if (event.messageId === undefined || (await this.isLiveCard(event.conversation, event.messageId)))
      return { ephemeral: notFound };
    await this.kernel
      .replace(
        { conversation: event.conversation, messageId: event.messageId },
        { kind: 'text', text: GONE_CARD_TEXT, tone: 'warning' },
      )
      .catch((error) => logger.warn({ err: errorMessage(error) }, 'could not close a card that is gone'));
    return { ephemeral: GONE_CARD_TEXT };
  }

  private async onCommand(event: Extract<ChatEvent, { kind: 'command' }>): Promise<RouterReply> {
    const command = parseRouterCommand(event.text);
    if (command || event.text.trim() === '') {
      return {
        ephemeral: await this.command(command ?? { name: 'help' }, event.principal, event.conversation),
      };
    }
    // `/ops plan <task>`: the task on the plan engine, whatever the channel's default.
    const planned = parsePlanCommand(event.text);
    if (planned?.task === '') return { ephemeral: planUsage(this.options.slashCommand ?? '/ops') };
    const task = planned?.task ?? event.text;
    // `/ops <task>`: show the task in the channel, and work in that message's thread.
    const ref = await this.kernel.notify(
      { ...event.conversation, threadId: undefined },
      { kind: 'text', text: `${event.principal.displayName} asked: ${task}` },
    );
    const conversation = { ...event.conversation, threadId: ref.messageId };
    return this.startTask(task, event.principal, conversation, planned ? 'plan' : undefined);
  }

  private async onMessage(event: Extract<ChatEvent, { kind: 'message' }>): Promise<RouterReply> {
    const { conversation, principal } = event;
    // One read of the thread's runs answers both questions: is a run waiting here, and has the bot worked here.
    const threadRunIds = await this.kernel.runs.threadRunIds(conversation);
    const history = threadRunIds.length > 0;
    if (!event.mentioned && !event.direct && !history) return {};
    const waiting = await this.waitingForUser(threadRunIds);
    // Only the person asked answers by replying; anyone else's reply is their own request, queued behind the
    // run (an admin answers for them with the question's buttons).
    if (waiting && personKey(waiting.principal) === personKey(principal)) {
      // "cancel" or "stop" alone is far likelier to mean the run than to answer its question: asked, not taken.
      if (STOP_WORDS.test(event.text)) {
        return {
          ephemeral: `Cancel this run? Click *Cancel run* on its question, or send \`${this.options.slashCommand ?? '/ops'} cancel\` in this thread. Your reply was not taken as the answer; to answer "${event.text.trim()}", put it in quotes.`,
        };
      }
      const quoted = /^\s*"(cancel|stop)"\s*$/i.exec(event.text);
      await this.kernel.answer(waiting.id, quoted ? quoted[1]! : event.text, principal);
      return {};
    }
    if (STOP_WORDS.test(event.text)) {
      return {
        ephemeral: await stopWordsReply(
          {
            kernel: this.kernel,
            principal,
            conversation,
            slashCommand: this.options.slashCommand ?? '/ops',
          },
          event.text,
        ),
      };
    }
    // A command's answer is written for the person who asked ("your roles"), so only they see it where the
    // platform can show a private reply.
    const command = parseRouterCommand(event.text);
    if (command) return { ephemeral: await this.command(command, principal, conversation) };
    return this.startTask(event.text, principal, conversation);
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
      ...(this.options.patrols ? { patrols: this.options.patrols } : {}),
      now: this.clock.now(),
    });
  }

  /**
   * Starts a task unless the person is over their rate, which only they are told; a busy thread queues it (the
   * kernel says so there).
   */
  private async startTask(
    text: string,
    principal: Principal,
    conversation: Conversation,
    engine?: ModelEngineKind,
  ): Promise<RouterReply> {
    const rate = await this.limiter.take(principal);
    if (!rate.allowed) {
      await this.audit.record({
        kind: 'rate_limited',
        actor: auditActor(principal),
        conversation,
        reason: rate.message,
      });
      return { ephemeral: rate.message };
    }
    const modelEngine = engine ?? modelEngineFor(this.options.settings.engines, conversation);
    await this.kernel.start({ text, principal, conversation, modelEngine });
    return {};
  }

  /** Whether a run of the thread still waits on the message: its approval card, or its question. */
  private async isLiveCard(conversation: Conversation, messageId: string): Promise<boolean> {
    for (const runId of (await this.kernel.runs.threadRunIds(conversation)).slice(-20)) {
      const run = await this.kernel.runs.find(runId).catch(() => undefined);
      if (run?.status === 'waiting_for_approval' && run.approval.cardMessageId === messageId) return true;
      if (run?.status === 'waiting_for_user' && run.question.messageId === messageId) return true;
    }
    return false;
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
