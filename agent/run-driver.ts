// Steps one run until it finishes or suspends: plan, execute the queue, check guards, save after every step.

import type { Clock } from './clock.js';
import type { Engine } from './engines/engine.js';
import { errorMessage, OpsbotError } from './errors.js';
import type { KernelLimits } from './kernel-options.js';
import type { Logger } from './logger.js';
import type { ApproverSet } from './policy/approver-set.js';
import { type AuditEntryInput, type AuditLog, auditActor } from './policy/audit-log.js';
import type { Redactor } from './redaction.js';
import type { PlannedCall, Run } from './run.js';
import type { RunNotifier } from './run-notifier.js';
import type { RunRepository } from './run-repository.js';
import { type CallOutcome, callSignature, type StepExecutor } from './step-executor.js';
import type { Store } from './store/store.js';
import type { Tool } from './tool.js';
import { hashState, nullTraceSink, type TraceRecord, type TraceSink } from './trace.js';

export interface RunDriverDeps {
  runs: RunRepository;
  store: Store;
  executor: StepExecutor;
  notifier: RunNotifier;
  trace: TraceSink;
  redactor: Redactor;
  clock: Clock;
  logger: Logger;
  limits: KernelLimits;
  emit(run: Run): void;
  /** Suspends the run for an approval; returns false when approvals cannot be requested. */
  requestApproval(
    run: Run,
    call: PlannedCall,
    tool: Tool,
    args: Record<string, unknown>,
    approvers: ApproverSet,
    ttlMs: number,
  ): Promise<boolean>;
  isClosing(): boolean;
  /** When set, every refusal, execution and outcome is recorded. */
  audit?: AuditLog;
}

export class RunDriver {
  /** Audit writes started by synchronous steps, awaited at the next save so none is lost. */
  private readonly auditWrites: Promise<unknown>[] = [];

  constructor(private readonly deps: RunDriverDeps) {}

  /** Steps the run while it is running; returns when it ends, suspends, or the kernel is closing. */
  async drive(run: Run, engine: Engine): Promise<void> {
    const { clock } = this.deps;
    let segmentStart = clock.now();
    const controller = new AbortController();
    try {
      while (run.status === 'running') {
        const now = clock.now();
        run.activeMs += now - segmentStart;
        segmentStart = now;
        if (this.deps.isClosing()) {
          await this.save(run);
          return;
        }
        // A cancel (possibly from another process) takes effect at the step boundary, before the next plan.
        const cancelledBy =
          run.queue.length === 0 ? await this.deps.store.get<string>(`cancel:${run.id}`) : undefined;
        if (cancelledBy) {
          await this.cancel(run, cancelledBy);
          return;
        }
        if (run.activeMs > this.deps.limits.maxWallTimeMs) {
          await this.fail(
            run,
            'max_wall_time',
            `Stopped: the run worked for ${Math.round(run.activeMs / 1000)} s, past the ${Math.round(this.deps.limits.maxWallTimeMs / 1000)} s limit (limits.max_wall_time). Narrow the task or raise the limit.`,
          );
          return;
        }
        // processQueue saves after each batch itself, but not the step that suspends or ends the run.
        if (run.queue.length > 0) {
          await this.processQueue(run);
          if (run.status !== 'running') await this.save(run);
        } else {
          await this.planNext(run, engine, controller.signal);
          // A step is a plan and its calls: when calls follow, the batch's save covers the plan too. A crash
          // in between re-plans from the last save; write and danger calls save `executing` before they run.
          if (run.queue.length === 0 || run.status !== 'running') await this.save(run);
        }
      }
    } finally {
      run.activeMs += clock.now() - segmentStart;
      controller.abort();
    }
  }

  private async planNext(run: Run, engine: Engine, signal: AbortSignal): Promise<void> {
    const { limits, clock } = this.deps;
    if (run.step >= limits.maxSteps) {
      await this.fail(
        run,
        'max_steps',
        `Stopped after ${run.step} steps without finishing (limits.max_steps is ${limits.maxSteps}). Narrow the task, or raise the limit.`,
      );
      return;
    }
    run.step += 1;
    const started = clock.now();
    const eventsBefore = run.events.length;
    let outcome: Awaited<ReturnType<Engine['plan']>>;
    // A signal per step: the SDK adds a listener per request, and one long-lived signal would collect them.
    const step = new AbortController();
    const abortStep = () => step.abort();
    signal.addEventListener('abort', abortStep, { once: true });
    try {
      outcome = await engine.plan(run, step.signal);
    } catch (error) {
      const code = error instanceof OpsbotError ? error.code : 'engine_error';
      await this.fail(run, code, this.deps.redactor.redact(errorMessage(error)));
      return;
    } finally {
      signal.removeEventListener('abort', abortStep);
    }
    this.deps.emit(run);
    const turn = run.events.slice(eventsBefore).find((event) => event.type === 'model_turn');
    await this.traceStep(run, {
      kind: 'model_turn',
      durationMs: clock.now() - started,
      summary:
        outcome.kind === 'answer'
          ? 'answered'
          : `called ${outcome.calls.map((call) => call.name).join(', ')}`,
      ...(turn?.type === 'model_turn'
        ? { promptTokens: turn.promptTokens, completionTokens: turn.completionTokens }
        : {}),
    });
    const tokens = run.usage.promptTokens + run.usage.completionTokens;
    if (tokens > limits.maxTokens) {
      await this.fail(
        run,
        'max_tokens',
        `Stopped: the run used ${tokens} tokens, past its budget of ${limits.maxTokens} (limits.max_tokens).`,
      );
      return;
    }
    if (outcome.kind === 'answer') {
      await this.finish(run, outcome.answer, outcome.details);
      return;
    }
    run.queue = outcome.calls;
  }

  /** Runs queued calls in order: consecutive read calls together, write and danger calls alone. */
  async processQueue(run: Run): Promise<void> {
    const { executor } = this.deps;
    while (run.queue.length > 0 && run.status === 'running') {
      const call = run.queue[0]!;
      const prepared = executor.prepare(run, call);
      switch (prepared.kind) {
        case 'finish':
          run.queue = [];
          await this.finish(run, prepared.answer);
          return;
        case 'ask':
          await this.askUser(run, call, prepared.question, prepared.choices, []);
          return;
        case 'missing':
          await this.askUser(run, call, prepared.question, prepared.choices, prepared.fields);
          return;
        case 'resolved':
          this.record(run, call, prepared.outcome);
          run.queue.shift();
          break;
        case 'approval': {
          if (!(await this.withinCallBudget(run))) return;
          const requested = await this.deps.requestApproval(
            run,
            call,
            prepared.tool,
            prepared.args,
            prepared.approvers,
            prepared.ttlMs,
          );
          if (requested) return;
          break;
        }
        case 'ready': {
          if (!(await this.withinCallBudget(run))) return;
          if (prepared.tool.risk === 'read') {
            await this.runReadBatch(run);
          } else {
            await this.runAlone(run, call, prepared.tool, prepared.args);
          }
          break;
        }
      }
      await this.save(run);
    }
  }

  /** Executes a write or danger call with `executing` saved first, so a crash mid-action is never replayed. */
  async runAlone(
    run: Run,
    call: PlannedCall,
    tool: Tool,
    args: Record<string, unknown>,
  ): Promise<CallOutcome> {
    const { clock } = this.deps;
    run.pending = { kind: 'executing', call: { ...call, args }, startedAt: clock.now() };
    run.events.push({ type: 'executing', at: clock.now(), step: run.step, callId: call.id, tool: tool.name });
    this.auditEntry(run, { kind: 'execution', tool: tool.name, args: this.deps.redactor.redactValue(args) });
    await this.save(run);
    const outcome = await this.deps.executor.execute(run, tool, args, call);
    run.pending = null;
    this.record(run, { ...call, args }, outcome);
    run.queue = run.queue.filter((queued) => queued.id !== call.id);
    return outcome;
  }

  private async runReadBatch(run: Run): Promise<void> {
    const { executor, limits } = this.deps;
    const batch: { call: PlannedCall; tool: Tool; args: Record<string, unknown> }[] = [];
    const signatures = new Set<string>();
    for (const call of run.queue) {
      if (run.usage.toolCalls + batch.length >= limits.maxToolCalls && batch.length > 0) break;
      const prepared = executor.prepare(run, call);
      if (prepared.kind !== 'ready' || prepared.tool.risk !== 'read') break;
      const signature = callSignature(prepared.tool.name, prepared.args);
      if (signatures.has(signature)) break;
      signatures.add(signature);
      batch.push({ call, tool: prepared.tool, args: prepared.args });
    }
    const outcomes = await Promise.all(
      batch.map(({ call, tool, args }) => executor.execute(run, tool, args, call)),
    );
    for (const [index, { call, args }] of batch.entries())
      this.record(run, { ...call, args }, outcomes[index]!);
    run.queue.splice(0, batch.length);
  }

  private async withinCallBudget(run: Run): Promise<boolean> {
    const { maxToolCalls } = this.deps.limits;
    if (run.usage.toolCalls < maxToolCalls) return true;
    await this.fail(
      run,
      'max_tool_calls',
      `Stopped: the run reached its budget of ${maxToolCalls} tool calls (limits.max_tool_calls) without finishing.`,
    );
    return false;
  }

  /** Appends a call's result to the transcript, the events and the trace. */
  record(run: Run, call: PlannedCall, outcome: CallOutcome): void {
    const { clock, redactor } = this.deps;
    const at = clock.now();
    const args = redactor.redactValue(call.args ?? call.rawArguments);
    if (outcome.executed || outcome.errorClass) run.usage.toolCalls += 1;
    run.messages.push({ role: 'tool', toolCallId: call.id, name: call.name, content: outcome.content });
    run.events.push({ type: 'tool_call', at, step: run.step, callId: call.id, tool: call.name, args });
    run.events.push({
      type: 'tool_result',
      at,
      step: run.step,
      callId: call.id,
      tool: call.name,
      ok: outcome.ok,
      ...(outcome.errorClass ? { errorClass: outcome.errorClass } : {}),
      summary: outcome.summary,
      durationMs: outcome.durationMs,
      repeated: outcome.repeated,
    });
    if (outcome.errorClass === 'permission_denied' || outcome.errorClass === 'refused_by_policy') {
      this.auditEntry(run, {
        kind: 'refusal',
        tool: call.name,
        args,
        outcome: outcome.errorClass,
        reason: outcome.summary,
      });
    } else if (outcome.executed) {
      this.auditEntry(run, {
        kind: 'outcome',
        tool: call.name,
        args,
        outcome: outcome.ok ? 'ok' : 'failed',
        reason: outcome.summary,
      });
    }
    if (outcome.executed && outcome.ok && call.args) {
      run.completedCalls[callSignature(call.name, call.args)] = { callId: call.id, content: outcome.content };
    }
    this.deps.emit(run);
    void this.traceStep(run, {
      kind: 'tool_call',
      tool: call.name,
      args,
      ok: outcome.ok,
      summary: outcome.summary,
      durationMs: outcome.durationMs,
    });
  }

  async askUser(
    run: Run,
    call: PlannedCall,
    question: string,
    choices: string[],
    missingFields: string[],
  ): Promise<void> {
    const { clock, limits, notifier } = this.deps;
    const now = clock.now();
    run.status = 'waiting_for_user';
    run.pending = {
      kind: 'question',
      question,
      choices,
      call,
      missingFields,
      askedAt: now,
      expiresAt: now + limits.questionTtlMs,
    };
    run.events.push({ type: 'question_asked', at: now, step: run.step, question, choices });
    this.deps.emit(run);
    await notifier.post(run, {
      kind: 'question',
      runId: run.id,
      question,
      choices,
      askedOf: run.principal.displayName,
    });
    await notifier.status(run, 'Waiting for your answer', 'warning');
    await this.traceStep(run, { kind: 'question', summary: question, durationMs: 0 });
  }

  async finish(
    run: Run,
    answer: string,
    details?: { tool: string; summary: string; data?: unknown }[],
  ): Promise<void> {
    const { clock, notifier, redactor } = this.deps;
    const text = redactor.redact(answer);
    run.status = 'finished';
    run.answer = text;
    run.pending = null;
    run.events.push({ type: 'finished', at: clock.now(), step: run.step, answer: text });
    this.deps.emit(run);
    await notifier.post(run, {
      kind: 'result',
      runId: run.id,
      text,
      ok: true,
      ...(details ? { details } : {}),
    });
    await notifier.status(run, 'Done', 'success');
    await this.traceStep(run, { kind: 'finished', summary: text.slice(0, 200), durationMs: 0 });
  }

  async fail(run: Run, code: string, message: string): Promise<void> {
    const { clock, notifier } = this.deps;
    run.status = 'failed';
    run.error = { code, message };
    run.pending = null;
    run.queue = [];
    run.events.push({ type: 'failed', at: clock.now(), step: run.step, code, message });
    this.deps.emit(run);
    await notifier.post(run, { kind: 'result', runId: run.id, text: message, ok: false });
    await notifier.status(run, 'Failed', 'error');
    await this.traceStep(run, { kind: 'failed', summary: message, durationMs: 0, ok: false });
  }

  async cancel(run: Run, by: string): Promise<void> {
    const { clock, notifier } = this.deps;
    run.status = 'cancelled';
    run.pending = null;
    run.queue = [];
    run.events.push({ type: 'cancelled', at: clock.now(), step: run.step, by });
    this.deps.emit(run);
    await notifier.post(run, { kind: 'text', text: `Cancelled by ${by}.`, tone: 'warning' });
    await notifier.status(run, `Cancelled by ${by}`, 'warning');
    await this.deps.store.delete(`cancel:${run.id}`);
  }

  async save(run: Run): Promise<void> {
    run.updatedAt = this.deps.clock.now();
    if (this.auditWrites.length > 0) await Promise.all(this.auditWrites.splice(0));
    await this.deps.runs.save(run);
  }

  private auditEntry(run: Run, entry: Omit<AuditEntryInput, 'actor' | 'runId' | 'conversation'>): void {
    const { audit } = this.deps;
    if (!audit) return;
    this.auditWrites.push(
      audit.record({
        ...entry,
        actor: auditActor(run.principal),
        runId: run.id,
        conversation: run.conversation,
      }),
    );
  }

  async traceStep(run: Run, record: Omit<TraceRecord, 'at' | 'runId' | 'step' | 'stateHash'>): Promise<void> {
    if (this.deps.trace === nullTraceSink) return;
    try {
      await this.deps.trace.append({
        at: this.deps.clock.now(),
        runId: run.id,
        step: run.step,
        stateHash: hashState({
          status: run.status,
          step: run.step,
          usage: run.usage,
          queue: run.queue.map((call) => call.id),
          pending: run.pending?.kind ?? null,
          messages: run.messages.length,
          events: run.events.length,
        }),
        ...record,
      } as TraceRecord);
    } catch (error) {
      this.deps.logger.warn({ runId: run.id, err: errorMessage(error) }, 'could not write the trace');
    }
  }
}
