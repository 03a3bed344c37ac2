// The kernel: turns tasks into durable runs and hands them to the RunQueue. Every command — start, answer,
// decide, cancel, expire, recover — is the same sequence: take the lease, apply the run machine, apply its
// effects, hand the run to the queue. A RunWorker steps the runs; nothing here waits for a run to finish.
import { randomBytes } from 'node:crypto';
import { interpretAnswer } from './answer-question.js';
import { type ApprovalGate, approvalCard, BookApprovalGate, noApprovals } from './approval-gate.js';
import type { ApprovalSettings } from './approval-settings.js';
import { BUILTIN_TOOLS } from './builtin-tools.js';
import { type MessageRef, nullChatPort, type OutboundMessage } from './chat-port.js';
import { BreakerRegistry } from './circuit-breaker.js';
import { type Clock, systemClock } from './clock.js';
import type { Conversation } from './conversation.js';
import { ConversationScheduler } from './conversation-scheduler.js';
import { createEngines } from './engines/create-engines.js';
import type { Engine } from './engines/engine.js';
import { CallerError, ErrorCode } from './errors.js';
import { ExpirySweep } from './expiry-sweep.js';
import { InProcessRunQueue } from './in-process-run-queue.js';
import {
  DEFAULT_RUN_LEASE_MS,
  type KernelLimits,
  type KernelOptions,
  kernelLimits,
  toolBreakerOptions,
} from './kernel-options.js';
import { type Logger, silentLogger } from './logger.js';
import { newRun, type TaskInput, taskProblem } from './new-run.js';
import { verifyBinding } from './policy/approval-record.js';
import { type DecideResult, decideResultMessage } from './policy/approvals.js';
import { type AuditLog, auditActor } from './policy/audit-log.js';
import type { Principal } from './principal.js';
import { randomHex } from './random-id.js';
import { Redactor } from './redaction.js';
import { type EngineKind, isSettled, isTerminal, type Run } from './run.js';
import { RunCancels } from './run-cancels.js';
import { RunEffects } from './run-effects.js';
import { RunLeases } from './run-leases.js';
import { type RunListener, RunListeners } from './run-listeners.js';
import { actorOf, type RunMachineEvent, transition } from './run-machine.js';
import type { RunQueue } from './run-queue.js';
import { RunRepository } from './run-repository.js';
import { describeRunState } from './run-state-words.js';
import { RunWorker } from './run-worker.js';
import { StepExecutor } from './step-executor.js';
import type { Store } from './store/store.js';
import { buildThreadSummary } from './thread-summary.js';
import { systemTimers, type Timers } from './timers.js';
import { allowAllPolicy, type ToolPolicy } from './tool-policy.js';
import { ToolRegistry } from './tool-registry.js';
import { nullTraceSink } from './trace.js';

export interface ApprovalClickResult {
  /** What to tell the person who clicked (an ephemeral reply on chat platforms). */
  message: string;
  /** False when the click changed nothing: refused, late, unknown. */
  settled: boolean;
  result: DecideResult;
}

export interface CancelResult {
  run: Run;
  /** What to tell the person who asked: cancelled now, or at the run's next step. */
  message: string;
}

/** An answer or a click waits this long for a step in progress on the same run to reach its boundary. */
const PERSON_WAITS_MS = 5_000;
/** A cancel of a run stepped in this process waits this long for the worker to stop it. */
const CANCEL_WAITS_MS = 3_000;

export class Kernel {
  readonly registry: ToolRegistry;
  readonly policy: ToolPolicy;
  readonly runs: RunRepository;
  readonly limits: KernelLimits;
  readonly store: Store;
  private readonly clock: Clock;
  private readonly logger: Logger;
  private readonly redactor: Redactor;
  private readonly leases: RunLeases;
  private readonly engines: Partial<Record<EngineKind, Engine>>;
  private readonly listeners: RunListeners;
  private readonly effects: RunEffects;
  private readonly queue: RunQueue;
  private readonly worker: RunWorker;
  private readonly scheduler: ConversationScheduler;
  private readonly cancels: RunCancels;
  private readonly gate: ApprovalGate;
  private readonly newId: () => string;
  private readonly approvals: ApprovalSettings | undefined;
  private readonly audit: AuditLog | undefined;
  private closing = false;

  constructor(options: KernelOptions) {
    const reserved = options.tools.find((tool) =>
      BUILTIN_TOOLS.some((builtin) => builtin.name === tool.name),
    );
    if (reserved) {
      throw new CallerError(
        ErrorCode.InvalidTool,
        `The tool name "${reserved.name}" is reserved for the kernel's built-in tool`,
      );
    }
    this.store = options.store;
    this.registry = new ToolRegistry(options.tools);
    this.policy = options.policy ? options.policy(this.registry) : allowAllPolicy(this.registry);
    this.clock = options.clock ?? systemClock;
    this.logger = options.logger ?? silentLogger;
    this.listeners = new RunListeners(this.logger);
    this.redactor = options.redactor ?? new Redactor();
    this.limits = kernelLimits(options.limits);
    this.newId = options.newId ?? (() => `run_${randomHex(8)}`);
    this.runs = new RunRepository(options.store);
    this.leases = new RunLeases(
      options.store,
      `kernel_${randomBytes(6).toString('hex')}`,
      options.runLeaseMs ?? DEFAULT_RUN_LEASE_MS,
      () => this.clock.now(),
    );
    this.approvals = options.approvals;
    this.audit = options.approvals?.audit;
    this.cancels = new RunCancels(options.store);
    this.queue = options.queue ?? new InProcessRunQueue(this.logger);
    this.scheduler = new ConversationScheduler({
      store: options.store,
      queue: this.queue,
      lockTtlMs: this.limits.maxWallTimeMs + 60 * 60_000,
      stillQueued: async (runId) => (await this.runs.find(runId))?.status === 'queued',
    });
    this.effects = new RunEffects({
      runs: this.runs,
      chat: options.chat ?? nullChatPort,
      redactor: this.redactor,
      trace: options.trace ?? nullTraceSink,
      clock: this.clock,
      logger: this.logger,
      listeners: this.listeners,
      scheduler: this.scheduler,
      queue: this.queue,
      cancels: this.cancels,
      ...(this.audit ? { audit: this.audit } : {}),
    });
    this.engines = createEngines({
      ...options,
      registry: this.registry,
      policy: this.policy,
      redactor: this.redactor,
      clock: this.clock,
    });
    this.gate = options.approvals
      ? new BookApprovalGate(options.approvals.book, this.redactor, this.clock)
      : noApprovals;
    this.worker = new RunWorker({
      runs: this.runs,
      leases: this.leases,
      effects: this.effects,
      cancels: this.cancels,
      executor: new StepExecutor({
        registry: this.registry,
        policy: this.policy,
        breakers: new BreakerRegistry(toolBreakerOptions(options.toolBreaker), this.clock),
        redactor: this.redactor,
        clock: this.clock,
        logger: this.logger,
        toolTimeoutMs: this.limits.toolTimeoutMs,
        toolOutputChars: this.limits.toolOutputChars,
      }),
      engines: this.engines,
      approvals: this.gate,
      redactor: this.redactor,
      clock: this.clock,
      limits: this.limits,
      logger: this.logger,
      timers: options.timers ?? systemTimers,
    });
    if (options.worker !== false)
      this.queue.process(this.worker.advance, { concurrency: options.concurrency ?? 32 });
  }

  /** A fresh run id, for callers that must name a run before starting it. */
  newRunId(): string {
    return this.newId();
  }

  get modelConfigured(): boolean {
    return this.engines.react !== undefined;
  }

  /** Called with the run after every change made in this process: the CLI prints steps from it. */
  onRunChange(listener: RunListener): () => void {
    return this.listeners.add(listener);
  }

  /**
   * Saves a new run and hands it to the queue — or, when its thread is busy, puts it in line there — and
   * returns its id at once. Bad input ends in a failed run with a clear message.
   */
  async start(task: TaskInput): Promise<string> {
    if (this.closing) {
      throw new CallerError(
        ErrorCode.InvalidTask,
        'opsbot is shutting down and takes no new tasks; try again in a moment',
      );
    }
    const engine = task.engine ?? (this.engines.react ? 'react' : 'command');
    const run = newRun({
      ...task,
      id: task.runId ?? this.newId(),
      now: this.clock.now(),
      engine,
      maxTaskChars: this.limits.maxTaskChars,
      redactor: this.redactor,
    });
    const problem = taskProblem(task.text, engine, this.limits.maxTaskChars);
    if (problem) {
      await this.apply(run, { type: 'failed', at: this.clock.now(), code: 'invalid_task', message: problem });
      return run.id;
    }
    run.messages.push({ role: 'user', content: run.task });
    await this.audit?.record({
      kind: 'request',
      actor: auditActor(run.principal),
      runId: run.id,
      conversation: run.conversation,
      reason: run.task.slice(0, 500),
    });
    const earlier = await this.runs.threadRunIds(task.conversation);
    if (earlier.length > 0) run.threadSummary = await buildThreadSummary(this.runs, earlier);
    const saved = await this.effects.create(run);
    const position = await this.scheduler.admit(saved.conversation, saved.id);
    if (position > 0) await this.apply(saved, { type: 'thread_busy', at: this.clock.now(), position });
    return saved.id;
  }

  /** A person's answer to the question a run waits on, from any process; the run then goes back to the queue. */
  async answer(runId: string, text: string, principal: Principal): Promise<Run> {
    return this.command(
      runId,
      async (handOff) => {
        const run = await this.runs.load(runId);
        if (run.status !== 'waiting_for_user') {
          throw new CallerError(
            ErrorCode.RunNotWaiting,
            `There is no question to answer: ${describeRunState(run)}.`,
          );
        }
        this.authorize(principal, run, { kind: 'answer' });
        const now = this.clock.now();
        if (now >= run.question.expiresAt) return this.apply(run, { type: 'question_expired', at: now });
        const answer = this.redactor.redact(text.trim());
        return this.apply(
          run,
          {
            type: 'answer_received',
            at: now,
            answer,
            by: actorOf(principal),
            take: interpretAnswer(run, answer, principal, this.registry),
            expiresAt: now + this.limits.questionTtlMs,
          },
          handOff,
        );
      },
      { waitMs: PERSON_WAITS_MS },
    );
  }

  /** An Approve or Deny click, from any replica: checked, claimed once, and the run handed back to the queue. */
  async decideApproval(
    approvalId: string,
    principal: Principal,
    decision: 'approve' | 'deny',
    reason?: string,
  ): Promise<ApprovalClickResult> {
    const approvals = this.approvals;
    if (!approvals) throw new CallerError(ErrorCode.NotAllowed, 'Approvals are not set up in this opsbot.');
    const result = await approvals.book.decide({
      approvalId,
      decider: principal,
      decision,
      settings: approvals.permissions,
      ...(reason ? { reason } : {}),
    });
    const message = decideResultMessage(result);
    if (result.kind === 'expired' && result.recorded) {
      await this.expire(result.approval.runId);
      return { message, settled: true, result };
    }
    if (result.kind !== 'decided') return { message, settled: false, result };
    const { approval } = result;
    const refusal = await this.command(
      approval.runId,
      async (handOff) => {
        const run = await this.runs.load(approval.runId);
        const bound =
          run.status === 'waiting_for_approval' &&
          verifyBinding(approval, {
            runId: run.id,
            step: approval.step,
            tool: run.approval.call.name,
            args: run.approval.call.args,
            requester: run.principal,
          });
        const decided = transition(run, {
          type: 'approval_decided',
          at: result.at,
          approvalId: approval.id,
          decision,
          by: actorOf(principal),
          ...(reason ? { reason } : {}),
          bound,
          stopOnDenial: approvals.permissions.on_denial === 'stop',
          card: approvalCard(approval),
        });
        if (!decided.ok) return decided.refusal.message;
        await this.effects.apply(decided.run, decided.effects, handOff);
        return undefined;
      },
      { waitMs: PERSON_WAITS_MS },
    );
    if (refusal) return { message: `${message} Nothing was run: ${refusal}.`, settled: false, result };
    return { message, settled: true, result };
  }

  /**
   * Cancels a run. A waiting or queued run is cancelled at once, its card or question closed. A run a worker
   * is stepping stops at its next step boundary; in this process that is at once, unless it is mid-action.
   */
  async cancel(runId: string, principal: Principal): Promise<CancelResult> {
    const run = await this.runs.load(runId);
    this.authorize(principal, run, { kind: 'cancel' });
    if (isTerminal(run.status)) {
      throw new CallerError(ErrorCode.RunWrongState, `Nothing to cancel: ${describeRunState(run)}.`);
    }
    const by = actorOf(principal);
    // A click or an answer holds a waiting run only for a moment: wait for it rather than leave a request
    // that no worker would read while the run waits.
    const waiting = run.status === 'waiting_for_user' || run.status === 'waiting_for_approval';
    if (!(await this.leases.claimWithin(runId, waiting ? PERSON_WAITS_MS : 0))) {
      await this.cancels.request(runId, by);
      if (this.worker.isStepping(runId)) await this.within(CANCEL_WAITS_MS, this.worker.stopped(runId));
      const now = await this.runs.load(runId);
      if (now.status === 'cancelled') return { run: now, message: `Cancelled ${runId}.` };
      // A worker holds it: a queued run is saved as running only at the end of its first step.
      const state = now.status === 'queued' ? `run ${runId} is working` : describeRunState(now);
      return { run: now, message: `${runId} will stop at its next step (${state}).` };
    }
    try {
      const current = await this.runs.load(runId);
      if (isTerminal(current.status)) {
        throw new CallerError(ErrorCode.RunWrongState, `Nothing to cancel: ${describeRunState(current)}.`);
      }
      if (current.status === 'executing') {
        // Nobody holds a run that is mid-action: its process died, and the action may or may not have happened.
        const interrupted = await this.apply(current, { type: 'action_interrupted', at: this.clock.now() });
        return { run: interrupted, message: `Nothing to cancel: ${describeRunState(interrupted)}.` };
      }
      return { run: await this.cancelHeld(current, by), message: `Cancelled ${runId}.` };
    } finally {
      await this.leases.release(runId);
    }
  }

  /** Expires the run's question or approval if it is due; false when there was nothing to expire. */
  async expire(runId: string): Promise<boolean> {
    const due = (
      run: Run | undefined,
    ): run is Extract<Run, { status: 'waiting_for_user' | 'waiting_for_approval' }> =>
      (run?.status === 'waiting_for_user' && this.clock.now() >= run.question.expiresAt) ||
      (run?.status === 'waiting_for_approval' && this.clock.now() >= run.approval.expiresAt);
    if (!due(await this.runs.find(runId))) return false;
    return this.command(runId, async (handOff) => {
      const run = await this.runs.find(runId);
      if (!due(run)) return false;
      if (run.status === 'waiting_for_user') {
        await this.apply(run, { type: 'question_expired', at: this.clock.now() });
        return true;
      }
      return this.expireApproval(run, handOff);
    });
  }

  /** After a restart and on a timer: a run caught mid-action becomes outcome_unknown; the rest go on. */
  async recover(): Promise<{ continued: number; outcomeUnknown: number }> {
    const counts = { continued: 0, outcomeUnknown: 0 };
    for (const runId of await this.runs.activeRunIds()) {
      if (this.leases.heldHere(runId) || (await this.leases.heldElsewhere(runId))) continue;
      const run = await this.runs.find(runId).catch((error) => {
        this.logger.error({ runId, err: String(error) }, 'a stored run could not be loaded');
        return undefined;
      });
      if (!run) continue;
      if (run.status === 'executing') {
        const marked = await this.leases
          .hold(runId, async () => {
            const current = await this.runs.load(runId);
            if (current.status !== 'executing') return false;
            await this.apply(current, { type: 'action_interrupted', at: this.clock.now() });
            return true;
          })
          .catch(() => false);
        if (marked) counts.outcomeUnknown += 1;
      } else if (run.status === 'running') {
        await this.queue.enqueue(runId);
        counts.continued += 1;
      } else if (run.status === 'queued') {
        if (await this.scheduler.holds(run.conversation, runId)) await this.queue.enqueue(runId);
        else await this.scheduler.admit(run.conversation, runId);
        counts.continued += 1;
      } else if (run.status === 'waiting_for_user' || run.status === 'waiting_for_approval') {
        // A cancel put off because another command (or a process that died) held the run: nobody steps a
        // waiting run, so recovery carries it out.
        await this.cancelPutOff(runId).catch((error) =>
          this.logger.warn({ runId, err: String(error) }, 'could not carry out a cancel put off'),
        );
      }
    }
    return counts;
  }

  /** The sweep that expires questions and approvals nobody answered; `serve` starts it as a service. */
  expirySweep(timers: Timers = systemTimers): ExpirySweep {
    return new ExpirySweep({
      waitingRunIds: () => this.runs.waitingRunIds(),
      find: (runId) => this.runs.find(runId),
      expire: (runId) => this.expire(runId),
      clock: this.clock,
      timers,
      logger: this.logger,
      intervalMs: this.limits.expirySweepMs,
    });
  }

  /** Redacts text bound for people outside a run's messages (a private reply, for one). */
  redact(text: string): string {
    return this.redactor.redact(text);
  }

  /** Posts a message that belongs to no run through the same redacting notifier as every run message. */
  notify(conversation: Conversation, message: OutboundMessage): Promise<MessageRef> {
    return this.effects.notify(conversation, message);
  }

  async get(runId: string): Promise<Run> {
    return this.runs.load(runId);
  }

  /** Resolves once this process has no run waiting for its worker or being stepped. */
  idle(): Promise<void> {
    return this.queue.idle();
  }

  /**
   * Resolves with the run once it ends or waits for a person, as this process's worker leaves it — or, when
   * this process has nothing left to step, as stored. For the CLI, tests and the bench.
   */
  settled(runId: string): Promise<Run> {
    return new Promise((resolve, reject) => {
      // Whichever comes first; once the listener has the run, the stored copy is not read at all.
      let heard = false;
      const stop = this.listeners.addFor(runId, (run) => {
        if (!isSettled(run.status)) return;
        heard = true;
        stop();
        // The worker lets go of the run (its lease) just after this change: resolve once it has.
        void this.worker.stopped(runId).then(() => resolve(run));
      });
      this.queue
        .idle()
        .then(() => (heard ? undefined : this.runs.load(runId)))
        .then(
          (run) => {
            if (heard || !run) return;
            stop();
            resolve(run);
          },
          (error) => {
            if (heard) return;
            stop();
            reject(error);
          },
        );
    });
  }

  /** Stops taking work; the runs being stepped save at their next step boundary. */
  async shutdown(): Promise<void> {
    this.closing = true;
    await this.worker.close();
    await this.queue.close();
    await this.effects.flush();
  }

  private authorize(principal: Principal, run: Run, action: Parameters<ToolPolicy['mayActOnRun']>[2]): void {
    const authority = this.policy.mayActOnRun(principal, run, action);
    if (!authority.allowed) throw new CallerError(ErrorCode.NotAllowed, authority.reason);
  }

  private async apply(run: Run, event: RunMachineEvent, handOff?: string[]): Promise<Run> {
    const result = transition(run, event);
    if (!result.ok)
      throw new CallerError(ErrorCode.RunWrongState, `Cannot do that: ${result.refusal.message}.`);
    return this.effects.apply(result.run, result.effects, handOff);
  }

  /**
   * A command on one run: under its lease (waiting briefly for a step in progress), and the run handed to
   * the queue only once the lease is free again, so the worker that takes it can take the lease too.
   */
  private async command<T>(
    runId: string,
    work: (handOff: string[]) => Promise<T>,
    options: { waitMs?: number } = {},
  ): Promise<T> {
    const handOff: string[] = [];
    const result = await this.leases.hold(runId, () => work(handOff), options);
    for (const queued of handOff) await this.queue.enqueue(queued);
    return result;
  }

  private async expireApproval(
    run: Extract<Run, { status: 'waiting_for_approval' }>,
    handOff: string[],
  ): Promise<boolean> {
    const approvals = this.approvals;
    if (!approvals) return false;
    const closed = await approvals.book.close(run.approval.approvalId, { kind: 'expired' });
    const approval = 'approval' in closed ? closed.approval : undefined;
    if (!approval) return false;
    const stopOnDenial = approvals.permissions.on_denial === 'stop';
    const card = approvalCard(approval);
    // A click may have won just before the expiry: then the run takes that decision instead.
    const event: RunMachineEvent =
      closed.kind === 'already_decided'
        ? {
            type: 'approval_decided',
            at: this.clock.now(),
            approvalId: approval.id,
            decision: closed.decision,
            by: closed.by,
            bound: true,
            stopOnDenial,
            card,
          }
        : { type: 'approval_expired', at: this.clock.now(), approvalId: approval.id, stopOnDenial, card };
    const result = transition(run, event);
    if (!result.ok) return false;
    await this.effects.apply(result.run, result.effects, handOff);
    return true;
  }

  /** Cancels a run this process holds the lease of, withdrawing the approval it waits for. */
  private async cancelHeld(current: Run, by: ReturnType<typeof actorOf>): Promise<Run> {
    let card: ReturnType<typeof approvalCard> | undefined;
    if (current.status === 'waiting_for_approval' && this.approvals) {
      const { book } = this.approvals;
      await book.close(current.approval.approvalId, { kind: 'withdrawn', by });
      const approval = await book.get(current.approval.approvalId);
      if (approval) card = approvalCard(approval);
    }
    return this.apply(current, { type: 'cancelled', at: this.clock.now(), by, ...(card ? { card } : {}) });
  }

  /** Carries out a cancel request stored for a waiting run, if there is one. */
  private async cancelPutOff(runId: string): Promise<void> {
    const request = await this.cancels.pending(runId);
    if (!request) return;
    await this.leases.hold(runId, async () => {
      const current = await this.runs.load(runId);
      if (current.status !== 'waiting_for_user' && current.status !== 'waiting_for_approval') return;
      await this.cancelHeld(current, { key: request.key, displayName: request.displayName });
    });
  }

  private within(ms: number, work: Promise<void>): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, ms);
      timer.unref();
      void work.finally(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }
}
