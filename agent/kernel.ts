// The kernel: turns tasks into durable runs, steps them with an engine, and resumes them from the Store alone.

import { randomBytes } from 'node:crypto';
import { type ApprovalClickResult, ApprovalFlow } from './approval-flow.js';
import { BUILTIN_TOOLS } from './builtin-tools.js';
import { nullChatPort } from './chat-port.js';
import { BreakerRegistry } from './circuit-breaker.js';
import { type Clock, systemClock } from './clock.js';
import type { Conversation } from './conversation.js';
import { CommandEngine } from './engines/command-engine.js';
import type { Engine } from './engines/engine.js';
import { ReactEngine } from './engines/react-engine.js';
import { CallerError, ErrorCode, errorMessage } from './errors.js';
import {
  DEFAULT_LIMITS,
  DEFAULT_TOOL_BREAKER,
  type KernelLimits,
  type KernelOptions,
} from './kernel-options.js';
import { type Logger, silentLogger } from './logger.js';
import { applyAnswer, missingFieldChoices, missingFieldsQuestion } from './missing-arguments.js';
import type { ApproverSet } from './policy/approver-set.js';
import { type AuditLog, auditActor } from './policy/audit-log.js';
import { type Principal, principalKey, samePrincipal } from './principal.js';
import { Redactor } from './redaction.js';
import { type EngineKind, isTerminal, type PlannedCall, RUN_SCHEMA_VERSION, type Run } from './run.js';
import { RunDriver } from './run-driver.js';
import { RunNotifier } from './run-notifier.js';
import { RunRepository } from './run-repository.js';
import { StepExecutor } from './step-executor.js';
import type { Store } from './store/store.js';
import { buildThreadSummary } from './thread-summary.js';
import type { Tool } from './tool.js';
import { refusedOutcome } from './tool-errors.js';
import { allowAllPolicy, type ToolPolicy } from './tool-policy.js';
import { ToolRegistry } from './tool-registry.js';
import { nullTraceSink } from './trace.js';

export interface TaskInput {
  text: string;
  principal: Principal;
  conversation: Conversation;
  /** Forces an engine; by default react when a model is configured, command otherwise. */
  engine?: EngineKind;
}

export type RunListener = (run: Run) => void;

const MAX_ANSWER_ATTEMPTS = 3;

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
  private readonly driver: RunDriver;
  private readonly engines: Partial<Record<EngineKind, Engine>> = {};
  private readonly listeners = new Set<RunListener>();
  private readonly active = new Set<Promise<unknown>>();
  private readonly owner = `kernel_${randomBytes(6).toString('hex')}`;
  private readonly newId: () => string;
  private readonly leaseMs: number;
  private closing = false;
  private readonly approvalFlow: ApprovalFlow | undefined;
  private readonly audit: AuditLog | undefined;
  constructor(options: KernelOptions) {
    for (const tool of options.tools) {
      if (BUILTIN_TOOLS.some((builtin) => builtin.name === tool.name)) {
        throw new CallerError(
          ErrorCode.InvalidTool,
          `The tool name "${tool.name}" is reserved for the kernel's built-in tool`,
        );
      }
    }
    this.store = options.store;
    this.registry = new ToolRegistry(options.tools);
    this.policy = options.policy ? options.policy(this.registry) : allowAllPolicy(this.registry);
    this.clock = options.clock ?? systemClock;
    this.logger = options.logger ?? silentLogger;
    this.redactor = options.redactor ?? new Redactor();
    this.limits = { ...DEFAULT_LIMITS, ...options.limits };
    this.newId = options.newId ?? (() => `run_${randomBytes(8).toString('hex')}`);
    this.leaseMs = options.runLeaseMs ?? 5 * 60_000;
    this.runs = new RunRepository(options.store);
    this.notifier = new RunNotifier(options.chat ?? nullChatPort, this.redactor, this.clock, this.logger);
    const executor = new StepExecutor({
      registry: this.registry,
      policy: this.policy,
      breakers: new BreakerRegistry({ ...DEFAULT_TOOL_BREAKER, ...options.toolBreaker }, this.clock),
      redactor: this.redactor,
      clock: this.clock,
      logger: this.logger,
      toolTimeoutMs: this.limits.toolTimeoutMs,
      toolOutputChars: this.limits.toolOutputChars,
    });
    this.driver = new RunDriver({
      runs: this.runs,
      store: options.store,
      executor,
      notifier: this.notifier,
      trace: options.trace ?? nullTraceSink,
      redactor: this.redactor,
      clock: this.clock,
      logger: this.logger,
      limits: this.limits,
      emit: (run) => this.emit(run),
      requestApproval: (run, call, tool, args, approvers, ttlMs) =>
        this.requestApproval(run, call, tool, args, approvers, ttlMs),
      isClosing: () => this.closing,
      ...(options.approvals ? { audit: options.approvals.audit } : {}),
    });
    this.audit = options.approvals?.audit;
    this.approvalFlow = options.approvals
      ? new ApprovalFlow({
          settings: options.approvals,
          registry: this.registry,
          driver: this.driver,
          notifier: this.notifier,
          redactor: this.redactor,
          clock: this.clock,
          logger: this.logger,
          withRun: (runId, change) => this.withRun(runId, change),
          continueHeld: (run) => this.continue(run, { leaseHeld: true }),
          expire: (run, message) => this.expire(run, message),
        })
      : undefined;
    this.engines.command = new CommandEngine({
      registry: this.registry,
      aliases: options.aliases ?? {},
      availableCommands: (run) =>
        this.policy
          .visibleTools(run.principal, run.conversation, this.registry.all())
          .map((tool) => tool.name),
      modelConfigured: options.model !== undefined,
    });
    if (options.model) {
      this.engines.react = new ReactEngine({
        model: options.model,
        registry: this.registry,
        policy: this.policy,
        redactor: this.redactor,
        clock: this.clock,
        botName: options.botName ?? 'opsbot',
        contextWindow: options.contextWindow ?? 128_000,
        compressAt: options.compressAt ?? 0.8,
        onCompressed: (run, beforeTokens, afterTokens) => {
          run.events.push({
            type: 'context_compressed',
            at: this.clock.now(),
            step: run.step,
            beforeTokens,
            afterTokens,
          });
        },
      });
    }
  }

  get modelConfigured(): boolean {
    return this.engines.react !== undefined;
  }

  /** Called with the run after every change: the CLI prints steps from it. */
  onRunChange(listener: RunListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Starts a task and steps it until it finishes or waits. Bad input ends in a failed run with a clear message. */
  async start(task: TaskInput): Promise<Run> {
    if (this.closing) {
      throw new CallerError(
        ErrorCode.InvalidTask,
        'opsbot is shutting down and takes no new tasks; try again in a moment',
      );
    }
    const engineKind = task.engine ?? (this.engines.react ? 'react' : 'command');
    const now = this.clock.now();
    const text = task.text.trim();
    const run: Run = {
      schemaVersion: RUN_SCHEMA_VERSION,
      id: this.newId(),
      status: 'running',
      engine: engineKind,
      principal: task.principal,
      conversation: task.conversation,
      task: this.redactor.redact(text.slice(0, this.limits.maxTaskChars)),
      createdAt: now,
      updatedAt: now,
      step: 0,
      usage: { promptTokens: 0, completionTokens: 0, modelCalls: 0, toolCalls: 0 },
      messages: [],
      queue: [],
      pending: null,
      completedCalls: {},
      activeMs: 0,
      askAttempts: 0,
      events: [],
    };
    run.events.push({ type: 'task_received', at: now, step: 0, text: run.task, engine: engineKind });
    const problem = this.taskProblem(text, engineKind);
    if (problem) {
      await this.runs.save(run);
      await this.driver.fail(run, 'invalid_task', problem);
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
    this.emit(run);
    await this.notifier.status(run, 'Working on it…', 'working');
    await this.continue(run);
    return run;
  }

  /** Continues a run that waits for a person's answer, in this process or any other. */
  async resume(runId: string, answer: string, principal: Principal): Promise<Run> {
    return this.withRun(runId, async (run) => {
      if (run.status !== 'waiting_for_user' || run.pending?.kind !== 'question') {
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
      const pending = run.pending;
      if (this.clock.now() >= pending.expiresAt) {
        await this.expire(
          run,
          `This question expired unanswered after ${formatHours(pending.expiresAt - pending.askedAt)}. Ask again to start a new run.`,
        );
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
      if (pending.missingFields.length > 0) {
        const retry = this.applyMissingFields(run, pending.call, pending.missingFields, cleanAnswer);
        if (retry) {
          const spec = this.registry.spec(pending.call.name);
          const choices = spec ? missingFieldChoices(spec, pending.missingFields) : [];
          await this.driver.askUser(run, run.queue[0]!, retry, choices, pending.missingFields);
          return run;
        }
      } else {
        run.messages.push({
          role: 'tool',
          toolCallId: pending.call.id,
          name: pending.call.name,
          content: JSON.stringify({
            tool: pending.call.name,
            ok: true,
            answer: cleanAnswer,
            answered_by: principal.displayName,
          }),
        });
        run.queue.shift();
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
      await this.store.set(`cancel:${runId}`, by, 24 * 3_600_000);
      return run;
    }
    return this.withRun(runId, async (current) => {
      if (!isTerminal(current.status)) {
        await this.driver.cancel(current, by);
        await this.runs.save(current);
      }
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
    if (!this.approvalFlow) {
      throw new CallerError(ErrorCode.NotAllowed, 'Approvals are not set up in this opsbot.');
    }
    return this.approvalFlow.decide(approvalId, principal, decision, reason);
  }

  async get(runId: string): Promise<Run> {
    return this.runs.load(runId);
  }

  /** Expires runs whose question or approval waited too long. Safe to call from every replica. */
  async expireWaiting(): Promise<number> {
    let expired = 0;
    for (const runId of await this.runs.waitingRunIds()) {
      const run = await this.runs.find(runId);
      if (run?.pending?.kind !== 'question' || this.clock.now() < run.pending.expiresAt) continue;
      await this.withRun(runId, async (current) => {
        if (current.pending?.kind === 'question' && this.clock.now() >= current.pending.expiresAt) {
          await this.expire(
            current,
            `This question expired unanswered after ${formatHours(current.pending.expiresAt - current.pending.askedAt)}. Ask again to start a new run.`,
          );
          expired += 1;
        }
        return current;
      }).catch((error) => this.logger.warn({ runId, err: errorMessage(error) }, 'could not expire a run'));
    }
    return expired;
  }

  /**
   * After a restart: a run caught mid-action becomes outcome_unknown (never replayed), and a run caught
   * between steps continues. Runs another live process holds are left alone.
   */
  async recover(): Promise<{ continued: number; outcomeUnknown: number }> {
    const counts = { continued: 0, outcomeUnknown: 0 };
    for (const runId of await this.runs.activeRunIds()) {
      const holder = await this.store.holder(leaseKey(runId));
      if (holder && holder !== this.owner) continue;
      const run = await this.runs.find(runId).catch((error) => {
        this.logger.error({ runId, err: errorMessage(error) }, 'a stored run could not be loaded');
        return undefined;
      });
      if (!run || isTerminal(run.status)) continue;
      if (run.pending?.kind === 'executing') {
        await this.withRun(runId, async (current) => {
          if (current.pending?.kind !== 'executing') return current;
          await this.markOutcomeUnknown(current);
          counts.outcomeUnknown += 1;
          return current;
        });
      } else if (run.status === 'running') {
        counts.continued += 1;
        await this.continue(run);
      }
    }
    return counts;
  }

  /** Stops taking work, lets the current steps finish and save, and waits for them. */
  async shutdown(): Promise<void> {
    this.closing = true;
    await Promise.allSettled([...this.active]);
  }

  /** Steps a running run under this process's lease; another process holding it keeps it. */
  async continue(run: Run, options: { leaseHeld?: boolean } = {}): Promise<void> {
    const engine = this.engines[run.engine];
    if (!engine) {
      await this.driver.fail(
        run,
        'no_engine',
        'This run needs a model, and no model is configured now. Set OPENAI_BASE_URL or OPENAI_API_KEY and try again.',
      );
      await this.runs.save(run);
      return;
    }
    if (!options.leaseHeld && !(await this.store.claim(leaseKey(run.id), this.owner, this.leaseMs))) return;
    const work = this.driver.drive(run, engine).finally(async () => {
      if (!options.leaseHeld) await this.store.release(leaseKey(run.id), this.owner);
    });
    this.active.add(work);
    try {
      await work;
    } finally {
      this.active.delete(work);
    }
  }

  /** Loads a run under its lease, applies a change, and saves; the lease stops two processes changing it at once. */
  async withRun<T>(runId: string, change: (run: Run) => Promise<T>): Promise<T> {
    const key = leaseKey(runId);
    if (!(await this.store.claim(key, this.owner, this.leaseMs))) {
      throw new CallerError(
        ErrorCode.RunNotWaiting,
        `Run ${runId} is busy in another step; try again in a moment.`,
      );
    }
    try {
      const run = await this.runs.load(runId);
      const result = await change(run);
      await this.runs.save(run);
      return result;
    } finally {
      await this.store.release(key, this.owner);
    }
  }

  /** Takes the answer into the call's arguments; returns a follow-up question when the answer does not fit. */
  private applyMissingFields(
    run: Run,
    call: PlannedCall,
    fields: string[],
    answer: string,
  ): string | undefined {
    const spec = this.registry.spec(call.name);
    const tool = this.registry.get(call.name);
    if (!spec || !tool) return undefined;
    const args = applyAnswer(spec, fields, call.args ?? {}, answer);
    run.queue[0] = { ...call, args, rawArguments: JSON.stringify(args) };
    const check = tool.input.safeParse(args);
    if (check.success || run.askAttempts + 1 >= MAX_ANSWER_ATTEMPTS) {
      run.askAttempts = 0;
      return undefined;
    }
    run.askAttempts += 1;
    const problem = check.error.issues
      .map((issue) => `${issue.path.join('.') || 'value'}: ${issue.message}`)
      .join('; ');
    return `That answer does not fit (${problem}). ${missingFieldsQuestion(spec, fields)}`;
  }

  private async requestApproval(
    run: Run,
    call: PlannedCall,
    tool: Tool,
    args: Record<string, unknown>,
    approvers: ApproverSet,
    ttlMs: number,
  ): Promise<boolean> {
    if (this.approvalFlow) return this.approvalFlow.request(run, call, tool, args, approvers, ttlMs);
    const message = `${tool.name} needs approval, and approvals are not set up here.`;
    this.driver.record(run, call, refusedOutcome(tool.name, 'permission_denied', message));
    run.queue.shift();
    return false;
  }

  private async markOutcomeUnknown(run: Run): Promise<void> {
    if (run.pending?.kind !== 'executing') return;
    const { call } = run.pending;
    run.status = 'outcome_unknown';
    run.events.push({
      type: 'outcome_unknown',
      at: this.clock.now(),
      step: run.step,
      callId: call.id,
      tool: call.name,
    });
    run.pending = null;
    run.queue = [];
    this.emit(run);
    const args = JSON.stringify(this.redactor.redactValue(call.args ?? {}));
    await this.notifier.post(run, {
      kind: 'result',
      runId: run.id,
      ok: false,
      text: `opsbot stopped while running ${call.name} ${args}, before its result was saved. It may or may not have taken effect, and it was NOT run again. Check the system, and ask again if it is still needed.`,
    });
    await this.notifier.status(run, 'Outcome unknown', 'error');
  }

  private async expire(run: Run, message: string): Promise<void> {
    run.status = 'expired';
    run.pending = null;
    run.queue = [];
    run.events.push({ type: 'expired', at: this.clock.now(), step: run.step, message });
    this.emit(run);
    await this.notifier.post(run, { kind: 'text', text: message, tone: 'warning' });
    await this.notifier.status(run, 'Expired', 'warning');
  }

  private taskProblem(text: string, engine: EngineKind): string | undefined {
    if (text.length === 0) {
      return engine === 'react'
        ? 'The task is empty. Tell me what to check, for example: "is https://example.com up?"'
        : 'The command is empty. Try `help` to list the commands.';
    }
    if (text.length > this.limits.maxTaskChars) {
      return `The task is ${text.length.toLocaleString('en-US')} characters long; the limit is ${this.limits.maxTaskChars.toLocaleString('en-US')} (limits.max_task_chars). Shorten it, or attach logs by path instead of pasting them.`;
    }
    return undefined;
  }

  private emit(run: Run): void {
    for (const listener of this.listeners) {
      try {
        listener(run);
      } catch (error) {
        this.logger.warn({ err: errorMessage(error) }, 'a run listener threw');
      }
    }
  }
}

function leaseKey(runId: string): string {
  return `run-lease:${runId}`;
}

function formatHours(ms: number): string {
  const hours = ms / 3_600_000;
  return hours >= 1 ? `${Math.round(hours * 10) / 10} h` : `${Math.round(ms / 60_000)} min`;
}
