// Steps one run until it finishes or suspends: plan, execute the queue, check guards, save after every step.

import type { Clock } from './clock.js';
import type { Engine } from './engines/engine.js';
import { errorMessage, OpsbotError } from './errors.js';
import type { KernelLimits } from './kernel-options.js';
import type { ApproverSet } from './policy/approver-set.js';
import type { Redactor } from './redaction.js';
import type { PlannedCall, Run } from './run.js';
import type { RunTransitions } from './run-transitions.js';
import { type CallOutcome, callSignature, type StepExecutor } from './step-executor.js';
import type { Store } from './store/store.js';
import type { Tool } from './tool.js';

export interface RunDriverDeps {
  transitions: RunTransitions;
  store: Store;
  executor: StepExecutor;
  redactor: Redactor;
  clock: Clock;
  limits: KernelLimits;
  emit(run: Run): void;
  /** Suspends the run for an approval; returns false when approvals cannot be requested. */
  requestApproval: ApprovalRequester;
  isClosing(): boolean;
  /** Keeps this process's lease on the run alive while it works. */
  renewLease?(runId: string): Promise<void>;
}

/** Suspends a run for an approval of one call; false when the call was refused instead. */
export type ApprovalRequester = (
  run: Run,
  call: PlannedCall,
  tool: Tool,
  args: Record<string, unknown>,
  approvers: ApproverSet,
  ttlMs: number,
) => Promise<boolean>;

interface ReadyCall {
  call: PlannedCall;
  tool: Tool;
  args: Record<string, unknown>;
}

export class RunDriver {
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
        await this.deps.renewLease?.(run.id);
        if (this.deps.isClosing()) {
          await this.deps.transitions.save(run);
          return;
        }
        // A cancel (possibly from another process) takes effect at the step boundary, before the next plan.
        const cancelledBy =
          run.queue.length === 0 ? await this.deps.store.get<string>(`cancel:${run.id}`) : undefined;
        if (cancelledBy) {
          await this.deps.transitions.cancel(run, cancelledBy);
          return;
        }
        if (run.activeMs > this.deps.limits.maxWallTimeMs) {
          await this.deps.transitions.fail(
            run,
            'max_wall_time',
            `Stopped: the run worked for ${Math.round(run.activeMs / 1000)} s, past the ${Math.round(this.deps.limits.maxWallTimeMs / 1000)} s limit (limits.max_wall_time). Narrow the task or raise the limit.`,
          );
          return;
        }
        // processQueue saves after each batch itself, but not the step that suspends or ends the run.
        if (run.queue.length > 0) {
          await this.processQueue(run);
          if (run.status !== 'running') await this.deps.transitions.save(run);
        } else {
          await this.planNext(run, engine, controller.signal);
          // A step is a plan and its calls: when calls follow, the batch's save covers the plan too. A crash
          // in between re-plans from the last save; write and danger calls save `executing` before they run.
          if (run.queue.length === 0 || run.status !== 'running') await this.deps.transitions.save(run);
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
      await this.deps.transitions.fail(
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
      await this.deps.transitions.fail(run, code, this.deps.redactor.redact(errorMessage(error)));
      return;
    } finally {
      signal.removeEventListener('abort', abortStep);
    }
    this.deps.emit(run);
    const turn = run.events.slice(eventsBefore).find((event) => event.type === 'model_turn');
    await this.deps.transitions.traceStep(run, {
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
      await this.deps.transitions.fail(
        run,
        'max_tokens',
        `Stopped: the run used ${tokens} tokens, past its budget of ${limits.maxTokens} (limits.max_tokens).`,
      );
      return;
    }
    if (outcome.kind === 'answer') {
      await this.deps.transitions.finish(run, outcome.answer, outcome.details, outcome.ok ?? true);
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
          await this.deps.transitions.finish(run, prepared.answer);
          return;
        case 'ask':
          await this.deps.transitions.askUser(run, call, prepared.question, prepared.choices, []);
          return;
        case 'missing':
          await this.deps.transitions.askUser(
            run,
            call,
            prepared.question,
            prepared.choices,
            prepared.fields,
          );
          return;
        case 'resolved':
          this.deps.transitions.record(run, call, prepared.outcome);
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
            await this.runReadBatch(run, { call, tool: prepared.tool, args: prepared.args });
          } else {
            await this.runAlone(run, call, prepared.tool, prepared.args);
          }
          break;
        }
      }
      await this.deps.transitions.save(run);
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
    this.deps.transitions.auditEntry(run, {
      kind: 'execution',
      tool: tool.name,
      args: this.deps.redactor.redactValue(args),
    });
    await this.deps.transitions.save(run);
    const outcome = await this.deps.executor.execute(run, tool, args, call);
    run.pending = null;
    this.deps.transitions.record(run, { ...call, args }, outcome);
    run.queue = run.queue.filter((queued) => queued.id !== call.id);
    return outcome;
  }

  /** Runs `first` (already prepared, at the head of the queue) together with the read calls right after it. */
  private async runReadBatch(run: Run, first: ReadyCall): Promise<void> {
    const { executor, limits } = this.deps;
    const batch: ReadyCall[] = [first];
    const signatures = new Set([callSignature(first.tool.name, first.args)]);
    for (const call of run.queue.slice(1)) {
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
      this.deps.transitions.record(run, { ...call, args }, outcomes[index]!);
    run.queue.splice(0, batch.length);
  }

  private async withinCallBudget(run: Run): Promise<boolean> {
    const { maxToolCalls } = this.deps.limits;
    if (run.usage.toolCalls < maxToolCalls) return true;
    await this.deps.transitions.fail(
      run,
      'max_tool_calls',
      `Stopped: the run reached its budget of ${maxToolCalls} tool calls (limits.max_tool_calls) without finishing.`,
    );
    return false;
  }
}
