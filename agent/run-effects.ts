// Carries out what run transitions cause: saves, chat posts through the redacting notifier (each once per post
// key, see post-ledger.ts), traces, audit entries, freeing the thread and handing the run to the queue. The only
// place a transition touches the world.
import type { ChatPort, MessageRef, MessageTone, OutboundMessage } from './chat-port.js';
import type { Clock } from './clock.js';
import { type Conversation, shownInChat } from './conversation.js';
import type { ConversationScheduler } from './conversation-scheduler.js';
import { errorMessage } from './errors.js';
import type { Logger } from './logger.js';
import { type AuditLog, auditActor } from './policy/audit-log.js';
import { type PostLedger, postKey, STATUS_POST } from './post-ledger.js';
import type { Redactor } from './redaction.js';
import { isTerminal, type Run } from './run.js';
import type { RunCancels } from './run-cancels.js';
import type { RunAuditEntry, RunEffect } from './run-effect.js';
import type { RunListeners } from './run-listeners.js';
import { transition } from './run-machine.js';
import type { RunQueue } from './run-queue.js';
import type { RunRepository } from './run-repository.js';
import { runStateHash } from './run-state-hash.js';
import type { StoreWrite } from './store/store.js';
import { nullTraceSink, type TraceRecord, type TraceSink } from './trace.js';

export interface RunEffectsDeps {
  runs: RunRepository;
  chat: ChatPort;
  redactor: Redactor;
  trace: TraceSink;
  clock: Clock;
  logger: Logger;
  listeners: RunListeners;
  scheduler: ConversationScheduler;
  queue: RunQueue;
  cancels: RunCancels;
  /** Keys every post, so a run stepped again after a crash does not post twice. */
  posts: PostLedger;
  audit?: AuditLog;
}

export class RunEffects {
  /** Audit writes started by earlier effects, awaited at the next save so none is lost. */
  private readonly auditWrites: Promise<unknown>[] = [];

  constructor(private readonly deps: RunEffectsDeps) {}

  /**
   * Applies the effects in order and returns the run as it is afterwards (with any new message ids). A caller
   * that holds the run's lease passes `handOff`: the run is queued there, to hand over once the lease is free.
   * `withSave` is written in the same write as the transition's last save (callers check there is one).
   */
  async apply(
    start: Run,
    effects: readonly RunEffect[],
    handOff?: string[],
    withSave: readonly StoreWrite[] = [],
  ): Promise<Run> {
    let run = start;
    const lastSave = effects.findLastIndex((effect) => effect.kind === 'save');
    for (let index = 0; index < effects.length; index++) {
      const effect = effects[index]!;
      // What needs no I/O is done here, without a wait: most transitions cause only a trace and an audit entry.
      if (effect.kind === 'enqueue' && handOff) handOff.push(run.id);
      else if (effect.kind === 'audit') this.audit(run, effect.entry);
      else if (effect.kind === 'free_thread' && run.alongside) {
        // A run alongside never took its thread: the lock and the line belong to the thread's active run.
      } else if (effect.kind === 'free_thread' && effects[index + 1]?.kind === 'save') {
        // The machine frees a thread just before the save that ends the run (or asks its question): both go
        // in one write, the freeing first, so no crash between them can leave the thread locked by an ended
        // run. Then the thread moves on.
        const freeing = this.deps.scheduler.freeing(run.conversation, run.id);
        const also = index + 1 === lastSave ? [...withSave] : [];
        run = await this.save(run, also, [freeing]);
        await this.deps.scheduler.moveOn(run.conversation, run.id);
        index += 1;
      } else if (effect.kind === 'save') {
        run = await this.save(run, index === lastSave ? [...withSave] : []);
      } else if (effect.kind !== 'trace' || this.tracing) {
        // Keyed by the run as the transition left it: a run stepped again from its last save makes the same keys.
        run = await this.applyOne(run, effect, postKey(start, index));
      }
    }
    this.deps.listeners.emit(run);
    return run;
  }

  /**
   * Shows progress on the run's status line while a step waits (a model call being retried), outside any
   * transition: nothing is saved, and the run comes back with its status message id.
   */
  progress(run: Run, text: string, tone: MessageTone): Promise<Run> {
    return this.status(run, text, tone);
  }

  /** False when no trace sink is set: callers can skip building trace records. */
  get tracing(): boolean {
    return this.deps.trace !== nullTraceSink;
  }

  private async applyOne(run: Run, effect: RunEffect, key: string): Promise<Run> {
    switch (effect.kind) {
      case 'save':
        return this.save(run);
      case 'post': {
        const posted = await this.post(run, effect.message, key);
        if (posted.kind === 'failed') return posted.run;
        if (posted.kind === 'unshown' || !effect.slot) return run;
        const remembered = transition(run, {
          type: 'message_posted',
          slot: effect.slot,
          messageId: posted.ref.messageId,
        });
        return remembered.ok ? remembered.run : run;
      }
      case 'update':
        return this.update(run, effect.messageId, effect.message);
      case 'status':
        return this.status(run, effect.text, effect.tone);
      case 'trace':
        await this.trace(run, effect.record);
        return run;
      case 'audit':
        this.audit(run, effect.entry);
        return run;
      case 'free_thread':
        await this.deps.scheduler.release(run.conversation, run.id);
        return run;
      case 'enqueue':
        await this.deps.queue.enqueue(run.id);
        return run;
      case 'forget_cancel_request':
        await this.deps.cancels.forget(run.id);
        return run;
    }
  }

  /** Starts the audit write; the next save waits for it, so none is lost. */
  private audit(run: Run, { actor, ...entry }: RunAuditEntry): void {
    if (!this.deps.audit) return;
    const write = this.deps.audit.record({
      ...entry,
      actor: actor ?? auditActor(run.principal),
      runId: run.id,
      conversation: run.conversation,
    });
    // The next save awaits it and fails with its error; until then (and if no save follows, because the store
    // went away) a failed write must not be an unhandled rejection, which would end the whole process.
    write.catch((error) =>
      this.deps.logger.warn({ runId: run.id, err: errorMessage(error) }, 'could not write an audit entry'),
    );
    this.auditWrites.push(write);
  }

  /** Saves a run that was just made, with its place in its thread, and tells the listeners. */
  async create(run: Run): Promise<Run> {
    const saved = { ...run, updatedAt: this.deps.clock.now() };
    if (this.auditWrites.length > 0) await Promise.all(this.auditWrites.splice(0));
    await this.deps.runs.create(saved);
    this.deps.listeners.emit(saved);
    return saved;
  }

  async save(
    run: Run,
    alsoWrite: readonly StoreWrite[] = [],
    writeFirst: readonly StoreWrite[] = [],
  ): Promise<Run> {
    const saved = { ...run, updatedAt: this.deps.clock.now() };
    if (this.auditWrites.length > 0) await Promise.all(this.auditWrites.splice(0));
    await this.deps.runs.save(saved, alsoWrite, writeFirst);
    return saved;
  }

  /** Writes one trace record; a trace that cannot be written is logged, never fatal to the run. */
  async trace(run: Run, record: Omit<TraceRecord, 'at' | 'runId' | 'step' | 'stateHash'>): Promise<void> {
    if (!this.tracing) return;
    try {
      await this.deps.trace.append({
        at: this.deps.clock.now(),
        runId: run.id,
        step: run.step,
        stateHash: runStateHash(run),
        ...record,
      } as TraceRecord);
    } catch (error) {
      this.deps.logger.warn({ runId: run.id, err: errorMessage(error) }, 'could not write the trace');
    }
  }

  /** Posts a message that belongs to no run (a router reply, an echo of a task), redacted like every other. */
  notify(conversation: Conversation, message: OutboundMessage): Promise<MessageRef> {
    return this.deps.chat.post(conversation, this.deps.redactor.redactValue(message));
  }

  /** Rewrites a message whose run is gone (a card after a store reset), redacted like every other. */
  replace(ref: MessageRef, message: OutboundMessage): Promise<void> {
    return this.deps.chat.update(ref, this.deps.redactor.redactValue(message));
  }

  /** Waits for audit entries still being written. */
  async flush(): Promise<void> {
    await Promise.all(this.auditWrites.splice(0));
  }

  private async post(
    run: Run,
    message: OutboundMessage,
    key: string,
  ): Promise<{ kind: 'posted'; ref: MessageRef } | { kind: 'failed'; run: Run } | { kind: 'unshown' }> {
    if (!shownInChat(run.conversation)) return { kind: 'unshown' };
    try {
      const redacted = this.deps.redactor.redactValue(message);
      const ref = await this.deps.posts.post(this.deps.chat, run.id, run.conversation, key, redacted);
      return { kind: 'posted', ref };
    } catch (error) {
      return { kind: 'failed', run: this.postFailed(run, 'post', error) };
    }
  }

  private async update(run: Run, messageId: string, message: OutboundMessage): Promise<Run> {
    if (!shownInChat(run.conversation)) return run;
    try {
      await this.deps.chat.update(
        { conversation: run.conversation, messageId },
        this.deps.redactor.redactValue(message),
      );
      return run;
    } catch (error) {
      return this.postFailed(run, 'update', error);
    }
  }

  private async status(run: Run, text: string, tone: MessageTone): Promise<Run> {
    const message: OutboundMessage = {
      kind: 'status',
      runId: run.id,
      text,
      tone,
      ...(isTerminal(run.status) ? {} : { cancellable: true }),
    };
    const shown = `${tone}|${message.cancellable ? 'cancellable|' : ''}${text}`;
    if (run.statusMessageId) {
      if (run.statusShown === shown) return run;
      const after = await this.update(run, run.statusMessageId, message);
      // A failed update leaves the line as it was: the next status is sent, even if it is this one.
      return after === run ? { ...run, statusShown: shown } : after;
    }
    // A status line posted by a worker that died before saving it is updated, not posted again.
    const posted = await this.post(run, message, STATUS_POST);
    if (posted.kind === 'unshown') return run;
    return posted.kind === 'posted'
      ? { ...run, statusMessageId: posted.ref.messageId, statusShown: shown }
      : posted.run;
  }

  /** A message that could not be posted is logged and recorded on the run; it is never retried as an action. */
  private postFailed(run: Run, action: string, error: unknown): Run {
    const text = this.deps.redactor.redact(errorMessage(error));
    this.deps.logger.warn({ runId: run.id, err: text }, `could not ${action} a chat message`);
    return {
      ...run,
      events: [
        ...run.events,
        { type: 'post_failed', at: this.deps.clock.now(), step: run.step, message: `${action}: ${text}` },
      ],
    };
  }
}
