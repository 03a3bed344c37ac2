// The kernel: turns tasks into durable runs and hands them to the RunQueue. Every command — start, answer,
// decide, cancel, expire, recover — is the same sequence: take the lease, apply the run machine, apply its
// effects, hand the run to the queue. A RunWorker steps the runs; nothing here waits for a run to finish.
import { randomBytes } from 'node:crypto';
import type { ApprovalSettings } from './approval-settings.js';
import { reviewerFor } from './call-review/reviewer-for.js';
import { type MessageRef, nullChatPort, type OutboundMessage } from './chat-port.js';
import { type Clock, systemClock } from './clock.js';
import { answerRun } from './commands/answer-command.js';
import { decideApproval, expireWait } from './commands/approval-commands.js';
import { backfillApprovalFields } from './commands/approval-fields-backfill.js';
import { cancelRun } from './commands/cancel-command.js';
import type { CommandCore } from './commands/command-core.js';
import { revokeGrant } from './commands/grant-commands.js';
import { recoverRuns } from './commands/recover-runs.js';
import { startRun } from './commands/start-command.js';
import type { Conversation } from './conversation.js';
import { ConversationScheduler } from './conversation-scheduler.js';
import { CommandEngine } from './engines/command-engine.js';
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
} from './kernel-options.js';
import type { ApprovalClickResult, CancelResult, DecideOptions, GrantResult } from './kernel-results.js';
import { stepExecutorFor, toolRegistryFor } from './kernel-tools.js';
import { type Logger, silentLogger } from './logger.js';
import { ModelFallback } from './model-fallback.js';
import type { TaskInput } from './new-run.js';
import { ApprovalGrants, type Grant } from './policy/approval-grants.js';
import type { AuditLog } from './policy/audit-log.js';
import { PostLedger } from './post-ledger.js';
import type { Principal } from './principal.js';
import { randomHex } from './random-id.js';
import { Redactor } from './redaction.js';
import type { EngineKind, Run } from './run.js';
import { RunCancels } from './run-cancels.js';
import { RunEffects } from './run-effects.js';
import { RunLeases } from './run-leases.js';
import { type RunListener, RunListeners } from './run-listeners.js';
import type { RunQueue } from './run-queue.js';
import { RunRepository } from './run-repository.js';
import { runSettled } from './run-settled.js';
import { RunWorker } from './run-worker.js';
import type { Store } from './store/store.js';
import { systemTimers, type Timers } from './timers.js';
import { allowAllPolicy, type ToolPolicy } from './tool-policy.js';
import type { ToolRegistry } from './tool-registry.js';
import { nullTraceSink } from './trace.js';
import { backfillWaitExpiry } from './wait-expiry-backfill.js';

export type { ApprovalClickResult, CancelResult, DecideOptions, GrantResult } from './kernel-results.js';
export type { Grant } from './policy/approval-grants.js';

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
  private readonly fallback: ModelFallback;
  private readonly listeners: RunListeners;
  private readonly effects: RunEffects;
  /** Where runs wait for a worker; read by /metrics for its depth. */
  readonly queue: RunQueue;
  private readonly worker: RunWorker;
  private readonly scheduler: ConversationScheduler;
  private readonly cancels: RunCancels;
  private readonly newId: () => string;
  private readonly approvals: ApprovalSettings | undefined;
  private readonly audit: AuditLog | undefined;
  private readonly workersSeen: (() => Promise<boolean>) | undefined;
  private readonly core: CommandCore;
  private readonly grants: ApprovalGrants;
  private closing = false;
  private readonly timers: Timers;

  constructor(options: KernelOptions) {
    this.registry = toolRegistryFor(options.tools);
    this.store = options.store;
    this.policy =
      typeof options.policy === 'function'
        ? options.policy(this.registry)
        : (options.policy ?? allowAllPolicy(this.registry));
    this.clock = options.clock ?? systemClock;
    this.logger = options.logger ?? silentLogger;
    this.listeners = new RunListeners(this.logger);
    this.redactor = options.redactor ?? new Redactor();
    this.limits = kernelLimits(options.limits);
    this.newId = options.newId ?? (() => `run_${randomHex(8)}`);
    this.runs = new RunRepository(options.store);
    this.leases = new RunLeases(
      options.store,
      options.instanceId ?? `kernel_${randomBytes(6).toString('hex')}`,
      options.runLeaseMs ?? DEFAULT_RUN_LEASE_MS,
      () => this.clock.now(),
      options.leaseRetrySleep,
    );
    this.approvals = options.approvals;
    this.audit = options.approvals?.audit;
    this.workersSeen = options.workersSeen;
    this.cancels = new RunCancels(options.store);
    this.grants = new ApprovalGrants(options.store, this.clock);
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
      posts: new PostLedger(options.store, this.logger),
      ...(this.audit ? { audit: this.audit } : {}),
    });
    this.engines = createEngines({
      ...options,
      registry: this.registry,
      policy: this.policy,
      redactor: this.redactor,
      clock: this.clock,
    });
    this.timers = options.timers ?? systemTimers;
    const command = this.engines.command;
    this.fallback = new ModelFallback({
      command: command instanceof CommandEngine ? command : undefined,
      outage: () => options.model?.outage?.(),
      clock: this.clock,
    });
    this.worker = new RunWorker({
      runs: this.runs,
      leases: this.leases,
      effects: this.effects,
      cancels: this.cancels,
      executor: stepExecutorFor(options, {
        registry: this.registry,
        policy: this.policy,
        redactor: this.redactor,
        clock: this.clock,
        logger: this.logger,
        limits: this.limits,
      }),
      engines: this.engines,
      approvalsEnabled: options.approvals !== undefined,
      ...(options.approvals
        ? { grants: this.grants, grantDurationsMs: options.approvals.permissions.grant_durations }
        : {}),
      ...reviewerFor(options, {
        redactor: this.redactor,
        logger: this.logger,
        timers: this.timers,
      }),
      redactor: this.redactor,
      clock: this.clock,
      limits: this.limits,
      logger: this.logger,
      timers: this.timers,
      fallback: this.fallback,
    });
    if (options.worker !== false)
      this.queue.process(this.worker.advance, { concurrency: options.concurrency ?? 32 });
    this.core = {
      runs: this.runs,
      leases: this.leases,
      effects: this.effects,
      queue: this.queue,
      scheduler: this.scheduler,
      cancels: this.cancels,
      worker: this.worker,
      policy: this.policy,
      registry: this.registry,
      redactor: this.redactor,
      clock: this.clock,
      logger: this.logger,
      limits: this.limits,
      approvals: this.approvals,
      grants: this.grants,
    };
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
    return startRun(this.core, task, {
      modelEngine: this.engines.react !== undefined,
      fallback: this.fallback,
      newId: this.newId,
      ...(this.audit ? { audit: this.audit } : {}),
      ...(this.workersSeen ? { workersSeen: this.workersSeen } : {}),
    });
  }

  /** A person's answer to the question a run waits on, from any process; the run then goes back to the queue. */
  answer(runId: string, text: string, principal: Principal): Promise<Run> {
    return answerRun(this.core, runId, text, principal);
  }

  /** An Approve or Deny click, from any replica: checked, claimed once, and the run handed back to the queue. */
  decideApproval(
    approvalId: string,
    principal: Principal,
    decision: 'approve' | 'deny',
    reason?: string,
    options: DecideOptions = {},
  ): Promise<ApprovalClickResult> {
    return decideApproval(this.core, approvalId, principal, decision, reason, options);
  }

  /** The approval grants in force, the soonest to end first. */
  listGrants(): Promise<Grant[]> {
    return this.grants.list();
  }

  /** Ends a grant before its time: admins and those who may approve its tool may. */
  revokeGrant(grantId: string, principal: Principal): Promise<GrantResult> {
    return revokeGrant(this.core, grantId, principal);
  }

  /**
   * Cancels a run. A waiting or queued run is cancelled at once, its card or question closed. A run a worker
   * is stepping stops at its next step boundary; in this process that is at once, unless it is mid-action.
   */
  cancel(runId: string, principal: Principal): Promise<CancelResult> {
    return cancelRun(this.core, runId, principal);
  }

  /** Expires the run's question or approval if it is due; false when there was nothing to expire. */
  expire(runId: string): Promise<boolean> {
    return expireWait(this.core, runId);
  }

  /** After a restart and on a timer: a run caught mid-action becomes outcome_unknown; the rest go on. */
  recover(): Promise<{ continued: number; outcomeUnknown: number }> {
    return recoverRuns(this.core);
  }

  /** The sweep that expires questions and approvals nobody answered; `serve` starts it as a service. */
  expirySweep(timers: Timers = systemTimers): ExpirySweep {
    return new ExpirySweep({
      dueWaits: (upTo, limit) => this.runs.dueWaits(upTo, limit),
      expire: (runId) => this.expire(runId),
      reindex: (runId) => this.runs.reindexWaitExpiry(runId),
      backfill: async () =>
        (await backfillWaitExpiry(this.store, this.runs)) +
        (await backfillApprovalFields(this.core, this.store)),
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

  /** Rewrites a message whose run is gone (a card whose approval no longer exists), through the same notifier. */
  replace(ref: MessageRef, message: OutboundMessage): Promise<void> {
    return this.effects.replace(ref, message);
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
    const { listeners, worker, queue, runs, timers } = this;
    return runSettled({ listeners, worker, queue, runs, timers }, runId);
  }

  /** Stops taking work; the runs being stepped save at their next step boundary. */
  async shutdown(): Promise<void> {
    this.closing = true;
    await this.worker.close();
    await this.queue.close();
    await this.effects.flush();
  }
}
