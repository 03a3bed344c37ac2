// The kernel: turns tasks into durable runs, steps them with an engine, and resumes them from the Store alone.
import { randomBytes } from 'node:crypto';
import { takeAnswer } from './answer-question.js';
import { type ApprovalClickResult, ApprovalFlow } from './approval-flow.js';
import { BUILTIN_TOOLS } from './builtin-tools.js';
import { nullChatPort } from './chat-port.js';
import { BreakerRegistry } from './circuit-breaker.js';
import { type Clock, systemClock } from './clock.js';
import { createEngines } from './engines/create-engines.js';
import type { Engine } from './engines/engine.js';
import { CallerError, ErrorCode } from './errors.js';
import {
  DEFAULT_LIMITS,
  DEFAULT_TOOL_BREAKER,
  defaultLeaseMs,
  type KernelLimits,
  type KernelOptions,
} from './kernel-options.js';
import { type Logger, silentLogger } from './logger.js';
import { newRun, type TaskInput, taskProblem } from './new-run.js';

import { type AuditLog, auditActor } from './policy/audit-log.js';
import { type Principal, principalKey, samePrincipal } from './principal.js';
import { Redactor } from './redaction.js';
import { type EngineKind, isTerminal, type Run } from './run.js';
import { type ApprovalRequester, RunDriver } from './run-driver.js';
import { RunLeases } from './run-leases.js';
import { type RunListener, RunListeners } from './run-listeners.js';
import { RunNotifier } from './run-notifier.js';
import { RunRecovery } from './run-recovery.js';
import { RunRepository } from './run-repository.js';
import { questionExpired, RunTransitions } from './run-transitions.js';
import { StepExecutor } from './step-executor.js';
import type { Store } from './store/store.js';
import { buildThreadSummary } from './thread-summary.js';
import { refusedOutcome } from './tool-errors.js';
import { allowAllPolicy, type ToolPolicy } from './tool-policy.js';
import { ToolRegistry } from './tool-registry.js';
import { nullTraceSink } from './trace.js';

export class Kernel {
  readonly registry: ToolRegistry;
  readonly policy: ToolPolicy;
  readonly runs: RunRepository;
  readonly limits: KernelLimits;
  readonly store: Store;
  private readonly clock: Clock;
  private readonly logger: Logger;
  private readonly redactor: Redactor;
  private readonly notifier: RunNotifier;
  private readonly transitions: RunTransitions;
  private readonly driver: RunDriver;
  private readonly leases: RunLeases;
  private readonly engines: Partial<Record<EngineKind, Engine>>;
  private readonly recovery: RunRecovery;
  private readonly listeners: RunListeners;
  private readonly active = new Set<Promise<unknown>>();
  private readonly newId: () => string;
  private readonly approvalFlow: ApprovalFlow | undefined;
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
    this.limits = { ...DEFAULT_LIMITS, ...options.limits };
    this.newId = options.newId ?? (() => `run_${randomBytes(8).toString('hex')}`);
    this.runs = new RunRepository(options.store);
    this.leases = new RunLeases(
      options.store,
      this.runs,
      `kernel_${randomBytes(6).toString('hex')}`,
      options.runLeaseMs ?? defaultLeaseMs(options.tools, this.limits.toolTimeoutMs),
      () => this.clock.now(),
    );
    this.notifier = new RunNotifier(options.chat ?? nullChatPort, this.redactor, this.clock, this.logger);
    this.audit = options.approvals?.audit;
    this.transitions = new RunTransitions({
      runs: this.runs,
      store: options.store,
      notifier: this.notifier,
      trace: options.trace ?? nullTraceSink,
      redactor: this.redactor,
      clock: this.clock,
      logger: this.logger,
      limits: this.limits,
      emit: (run) => this.listeners.emit(run),
      ...(this.audit ? { audit: this.audit } : {}),
    });
    this.driver = new RunDriver({
      transitions: this.transitions,
      store: options.store,
      executor: new StepExecutor({
        registry: this.registry,
        policy: this.policy,
        breakers: new BreakerRegistry({ ...DEFAULT_TOOL_BREAKER, ...options.toolBreaker }, this.clock),
        redactor: this.redactor,
        clock: this.clock,
        logger: this.logger,
        toolTimeoutMs: this.limits.toolTimeoutMs,
        toolOutputChars: this.limits.toolOutputChars,
      }),
      redactor: this.redactor,
      clock: this.clock,
      limits: this.limits,
      emit: (run) => this.listeners.emit(run),
      requestApproval: (...request) => this.requestApproval(...request),
      isClosing: () => this.closing,
      renewLease: (runId) => this.leases.renew(runId),
    });
    this.approvalFlow = options.approvals
      ? new ApprovalFlow({
          settings: options.approvals,
          registry: this.registry,
          driver: this.driver,
          transitions: this.transitions,
          notifier: this.notifier,
          redactor: this.redactor,
          clock: this.clock,
          withRun: (runId, change) => this.leases.withRun(runId, change),
          continueHeld: (run) => this.continue(run, { leaseHeld: true }),
        })
      : undefined;
    this.engines = createEngines({
      ...options,
      registry: this.registry,
      policy: this.policy,
      redactor: this.redactor,
      clock: this.clock,
    });
    this.recovery = new RunRecovery({
      runs: this.runs,
      leases: this.leases,
      transitions: this.transitions,
      clock: this.clock,
      logger: this.logger,
      continueRun: (run) => this.continue(run),
    });
  }

  /** A fresh run id, for callers that must name a run before starting it (the router's thread lock). */
  newRunId(): string {
    return this.newId();
  }

  get modelConfigured(): boolean {
    return this.engines.react !== undefined;
  }

  /** Called with the run after every change: the CLI prints steps from it. */
  onRunChange(listener: RunListener): () => void {
    return this.listeners.add(listener);
  }

  /** Starts a task and steps it until it finishes or waits. Bad input ends in a failed run with a clear message. */
  async start(task: TaskInput): Promise<Run> {
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
      await this.transitions.fail(run, 'invalid_task', problem);
      await this.runs.save(run);
      return run;
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
    await this.runs.addToThread(task.conversation, run.id);
    await this.runs.save(run);
    this.listeners.emit(run);
    await this.notifier.status(run, 'Working on it…', 'working');
    await this.continue(run);
    return run;
  }

  /** Continues a run that waits for a person's answer, in this process or any other. */
  async resume(runId: string, answer: string, principal: Principal): Promise<Run> {
    return this.leases.withRun(runId, async (run) => {
      const pending = run.pending;
      if (run.status !== 'waiting_for_user' || pending?.kind !== 'question') {
        throw new CallerError(
          ErrorCode.RunNotWaiting,
          `Run ${runId} is not waiting for an answer (it is ${run.status.replaceAll('_', ' ')}).`,
        );
      }
      if (!samePrincipal(principal, run.principal) && !this.policy.isAdmin(principal)) {
        throw new CallerError(
          ErrorCode.NotAllowed,
          `Only ${run.principal.displayName} (who asked) or an admin can answer this question.`,
        );
      }
      if (this.clock.now() >= pending.expiresAt) {
        await this.transitions.expire(run, questionExpired(pending.expiresAt - pending.askedAt));
        return run;
      }
      const cleanAnswer = this.redactor.redact(answer.trim());
      run.events.push({
        type: 'answer_received',
        at: this.clock.now(),
        step: run.step,
        answer: cleanAnswer,
        by: principalKey(principal),
      });
      run.pending = null;
      run.status = 'running';
      await this.transitions.showAnswered(run, pending, cleanAnswer, principal.displayName);
      const outcome = takeAnswer(run, pending, cleanAnswer, principal, this.registry);
      if (outcome.kind === 'ask_again') {
        await this.transitions.askUser(run, run.queue[0]!, outcome.question, outcome.choices, outcome.fields);
        return run;
      }
      await this.notifier.status(run, 'Working on it…', 'working');
      await this.runs.save(run);
      await this.continue(run, { leaseHeld: true });
      return run;
    });
  }

  /** Stops a run at its next step boundary; a waiting run stops at once. */
  async cancel(runId: string, principal: Principal): Promise<Run> {
    const run = await this.runs.load(runId);
    if (!samePrincipal(principal, run.principal) && !this.policy.isAdmin(principal)) {
      throw new CallerError(
        ErrorCode.NotAllowed,
        `Only ${run.principal.displayName} (who asked) or an admin can cancel run ${runId}.`,
      );
    }
    if (isTerminal(run.status)) return run;
    const by = principal.displayName || principalKey(principal);
    await this.audit?.record({
      kind: 'cancel',
      actor: auditActor(principal),
      runId,
      conversation: run.conversation,
    });
    if (run.status === 'running') {
      // The process stepping it, wherever it is, reads this at the next step boundary.
      await this.store.set(`cancel:${runId}`, by, 24 * 3_600_000);
      return run;
    }
    return this.leases.withRun(runId, async (current) => {
      if (!isTerminal(current.status)) await this.transitions.cancel(current, by);
      return current;
    });
  }

  /** An Approve or Deny click, from any replica: checked, claimed once, and the run resumed from the Store. */
  async decideApproval(
    approvalId: string,
    principal: Principal,
    decision: 'approve' | 'deny',
    reason?: string,
  ): Promise<ApprovalClickResult> {
    if (!this.approvalFlow)
      throw new CallerError(ErrorCode.NotAllowed, 'Approvals are not set up in this opsbot.');
    return this.approvalFlow.decide(approvalId, principal, decision, reason);
  }

  async get(runId: string): Promise<Run> {
    return this.runs.load(runId);
  }

  /** Expires runs whose question waited too long. Safe to call from every replica. */
  expireWaiting(): Promise<number> {
    return this.recovery.expireWaiting();
  }

  /** After a restart: continues runs caught between steps; a run caught mid-action becomes outcome_unknown. */
  recover(): Promise<{ continued: number; outcomeUnknown: number }> {
    return this.recovery.recover();
  }

  /** Stops taking work, lets the current steps finish and save, and waits for them. */
  async shutdown(): Promise<void> {
    this.closing = true;
    await Promise.allSettled([...this.active]);
  }

  /** Steps a running run under this process's lease; another process holding it keeps it. */
  private async continue(run: Run, options: { leaseHeld?: boolean } = {}): Promise<void> {
    const engine = this.engines[run.engine];
    if (!engine) {
      await this.transitions.fail(
        run,
        'no_engine',
        'This run needs a model, and no model is configured now. Set OPENAI_BASE_URL or OPENAI_API_KEY and try again.',
      );
      await this.runs.save(run);
      return;
    }
    if (!options.leaseHeld && !(await this.leases.claim(run.id))) return;
    const work = this.driver.drive(run, engine).finally(async () => {
      if (!options.leaseHeld) await this.leases.release(run.id);
    });
    this.active.add(work);
    try {
      await work;
    } finally {
      this.active.delete(work);
    }
  }

  private requestApproval: ApprovalRequester = async (run, call, tool, args, approvers, ttlMs) => {
    if (this.approvalFlow) return this.approvalFlow.request(run, call, tool, args, approvers, ttlMs);
    const message = `${tool.name} needs approval, and approvals are not set up here.`;
    this.transitions.record(run, call, refusedOutcome(tool.name, 'permission_denied', message));
    run.queue.shift();
    return false;
  };
}
