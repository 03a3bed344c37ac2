// Takes runs from the RunQueue and steps each one under its lease until it ends or waits for a person:
// plan, run the calls, check the guards. Every state change goes through the run machine.

import type { ApprovalGate } from './approval-gate.js';
import type { Clock } from './clock.js';
import type { Engine } from './engines/engine.js';
import { ErrorCode, errorMessage, OpsbotError, SystemError } from './errors.js';
import type { KernelLimits } from './kernel-options.js';
import type { Logger } from './logger.js';
import type { ModelFallback } from './model-fallback.js';
import type { Redactor } from './redaction.js';
import type { EngineKind, Run } from './run.js';
import { RunCalls } from './run-calls.js';
import type { CancelRequest, RunCancels } from './run-cancels.js';
import type { RunEffects } from './run-effects.js';
import type { RunLeases } from './run-leases.js';
import { type RunMachineEvent, transition } from './run-machine.js';
import { errorsMet, outcomeProblems } from './run-outcomes.js';
import { noProgress, wrapUpFor } from './run-progress.js';
import type { RunRepository } from './run-repository.js';
import type { StepExecutor } from './step-executor.js';
import { StepProgress } from './step-progress.js';
import type { Timers } from './timers.js';

export interface RunWorkerDeps {
  runs: RunRepository;
  leases: RunLeases;
  effects: RunEffects;
  cancels: RunCancels;
  executor: StepExecutor;
  engines: Partial<Record<EngineKind, Engine>>;
  approvals: ApprovalGate;
  redactor: Redactor;
  clock: Clock;
  limits: KernelLimits;
  logger: Logger;
  timers: Timers;
  /** What a model run does when its model cannot be reached. */
  fallback?: ModelFallback;
}

/** How often, in working time, a worker looks in the Store for a cancel sent from another process. */
const CANCEL_CHECK_MS = 2_000;

interface Stepping {
  controller: AbortController;
  cancel?: CancelRequest;
  lastCancelCheck: number;
  done: Promise<void>;
}

export class RunWorker {
  private readonly stepping = new Map<string, Stepping>();
  private closing = false;

  private readonly calls: RunCalls;

  constructor(private readonly deps: RunWorkerDeps) {
    this.calls = new RunCalls({ ...deps, apply: (run, event) => this.apply(run, event) });
  }

  /** The queue's job: advance one run, if no other process holds it. */
  advance = async (runId: string): Promise<void> => {
    if (this.closing || !(await this.deps.leases.claim(runId))) return;
    const state: Stepping = {
      controller: new AbortController(),
      lastCancelCheck: this.deps.clock.now(),
      done: Promise.resolve(),
    };
    let finished!: () => void;
    state.done = new Promise((resolve) => {
      finished = resolve;
    });
    this.stepping.set(runId, state);
    const cancel = (request: CancelRequest) => {
      state.cancel ??= request;
      state.controller.abort(new Error(`cancelled by ${request.displayName}`));
    };
    const unwatch = this.deps.cancels.watch(runId, cancel);
    const stopBeating = this.heartbeat(runId, cancel);
    try {
      const run = await this.deps.runs.find(runId);
      if (!run || (run.status !== 'queued' && run.status !== 'running')) return;
      const stored = await this.deps.cancels.pending(runId);
      if (stored) state.cancel ??= stored;
      if (state.cancel) {
        await this.apply(run, { type: 'cancelled', at: this.now(), by: actor(state.cancel) });
        return;
      }
      const engine = this.deps.engines[run.engine];
      if (!engine) {
        await this.apply(run, {
          type: 'failed',
          at: this.now(),
          code: 'no_engine',
          message:
            'This run needs a model, and no model is configured now. Set OPENAI_BASE_URL or OPENAI_API_KEY and try again.',
        });
        return;
      }
      const started = await this.apply(run, { type: 'work_started', at: this.now() });
      await this.drive(started, engine, state);
    } finally {
      stopBeating();
      unwatch();
      this.stepping.delete(runId);
      finished();
      if (this.deps.leases.heldHere(runId)) await this.deps.leases.release(runId);
    }
  };

  /**
   * While the run is stepped, whatever the step is doing (a slow model call, a long tool): the lease is renewed,
   * so a live worker is never taken over and a dead one is found within one lease; and a cancel sent from
   * another process is read, and aborts the step at once.
   */
  private heartbeat(runId: string, cancel: (request: CancelRequest) => void): () => void {
    const { timers, leases, cancels, logger } = this.deps;
    let handle: unknown;
    let stopped = false;
    const beat = async () => {
      try {
        await leases.renew(runId);
        const request = await cancels.pending(runId);
        if (request) cancel(request);
      } catch (error) {
        logger.warn({ runId, err: errorMessage(error) }, 'could not renew a run lease');
      }
      if (!stopped) handle = timers.setTimeout(() => void beat(), leases.heartbeatMs);
    };
    handle = timers.setTimeout(() => void beat(), leases.heartbeatMs);
    return () => {
      stopped = true;
      timers.clearTimeout(handle);
    };
  }

  /** True while this process steps the run. */
  isStepping(runId: string): boolean {
    return this.stepping.has(runId);
  }

  /** Resolves when this process stops stepping the run (or at once, if it is not). */
  stopped(runId: string): Promise<void> {
    return this.stepping.get(runId)?.done ?? Promise.resolve();
  }

  /** Lets the runs being stepped reach their next step boundary, save there, and stop. */
  async close(): Promise<void> {
    this.closing = true;
    await Promise.allSettled([...this.stepping.values()].map((state) => state.done));
  }

  private now(): number {
    return this.deps.clock.now();
  }

  private async apply(run: Run, event: RunMachineEvent): Promise<Run> {
    const result = transition(run, event);
    if (!result.ok) {
      throw new SystemError(
        ErrorCode.RunWrongState,
        `The worker cannot apply ${event.type}: ${result.refusal.message}`,
      );
    }
    const { leases } = this.deps;
    if (!(leases.heldFresh(run.id) ?? (await leases.stillHeld(run.id)))) {
      throw new SystemError(
        ErrorCode.RunLeaseLost,
        `Run ${run.id} was left unchanged: this process's lease on it ran out while it worked, so another process may have taken it over`,
      );
    }
    // A transition that ends this worker's turn with the run lets go of its lease in the run's last save.
    const letsGo =
      result.run.status !== 'running' &&
      result.run.status !== 'executing' &&
      result.effects.some((effect) => effect.kind === 'save');
    if (!letsGo) return this.deps.effects.apply(result.run, result.effects);
    const after = await this.deps.effects.apply(result.run, result.effects, undefined, [
      this.deps.leases.releaseWrite(run.id),
    ]);
    this.deps.leases.released(run.id);
    return after;
  }

  private async drive(start: Run, engine: Engine, state: Stepping): Promise<void> {
    let run = start;
    let segmentStart = this.now();
    while (run.status === 'running') {
      const now = this.now();
      run = { ...run, activeMs: run.activeMs + (now - segmentStart) };
      segmentStart = now;
      const renewed = await this.deps.leases.renew(run.id);
      if (this.closing) {
        await this.apply(run, { type: 'step_completed', at: now });
        return;
      }
      if (!state.cancel && (renewed || now - state.lastCancelCheck >= CANCEL_CHECK_MS)) {
        state.lastCancelCheck = now;
        state.cancel = await this.deps.cancels.pending(run.id);
      }
      if (state.cancel) {
        await this.apply(run, { type: 'cancelled', at: now, by: actor(state.cancel) });
        return;
      }
      const { maxWallTimeMs } = this.deps.limits;
      if (run.activeMs > maxWallTimeMs) {
        await this.apply(run, {
          type: 'failed',
          at: now,
          code: 'max_wall_time',
          message: `Stopped: the run worked for ${Math.round(run.activeMs / 1000)} s, past the ${Math.round(maxWallTimeMs / 1000)} s limit (limits.max_wall_time). Narrow the task or raise the limit.`,
        });
        return;
      }
      // A run moved to the command engine (its model is down) plans there from then on.
      const current = this.deps.engines[run.engine] ?? engine;
      run =
        run.queue.length > 0
          ? await this.calls.runQueued(run, state.controller.signal)
          : await this.plan(run, current, state);
    }
  }

  /** The run stops at its step limit, saying which errors it met on the way: not only "raise the limit". */
  private stepLimitReached(run: Run): Promise<Run> {
    const { maxSteps } = this.deps.limits;
    const met = errorsMet(outcomeProblems(run));
    return this.apply(run, {
      type: 'failed',
      at: this.now(),
      code: 'max_steps',
      message: [
        `Stopped after ${run.step} steps without finishing (limits.max_steps is ${maxSteps}). Narrow the task, or raise the limit.`,
        ...met,
      ].join('\n\n'),
    });
  }

  private async plan(start: Run, engine: Engine, state: Stepping): Promise<Run> {
    const { limits, clock } = this.deps;
    if (start.step >= limits.maxSteps) return this.stepLimitReached(start);
    // A model run that is not getting anywhere asks its requester before it spends more steps; its last turn (at
    // the step limit, or told to stop) answers without tools.
    const wrapUp = engine.kind === 'react' ? wrapUpFor(start, limits.maxSteps) : undefined;
    const stuck = engine.kind === 'react' && !wrapUp ? noProgress(start) : undefined;
    if (stuck) {
      return this.apply(start, {
        type: 'stuck',
        at: this.now(),
        reason: stuck,
        callId: `stuck_${start.step + 1}`,
        expiresAt: this.now() + limits.questionTtlMs,
      });
    }
    // The engine adds its turn to the transcript of a working copy; the machine then takes the plan.
    const working: Run = {
      ...start,
      step: start.step + 1,
      messages: [...start.messages],
      events: [...start.events],
      usage: { ...start.usage },
    };
    const began = clock.now();
    const eventsBefore = working.events.length;
    let outcome: Awaited<ReturnType<Engine['plan']>>;
    // A signal per step: the SDK adds a listener per request, and one long-lived signal would collect them.
    const step = new AbortController();
    const abortStep = () => step.abort(state.controller.signal.reason);
    state.controller.signal.addEventListener('abort', abortStep, { once: true });
    const progress = new StepProgress(this.deps.effects, working);
    try {
      outcome = await engine.plan(working, step.signal, progress, wrapUp ? { wrapUp } : {});
      await progress.done();
    } catch (error) {
      await progress.done(false);
      if (state.cancel)
        return this.apply(working, { type: 'cancelled', at: this.now(), by: actor(state.cancel) });
      const code = error instanceof OpsbotError ? error.code : 'engine_error';
      const fallback =
        engine.kind === 'react' ? this.deps.fallback?.afterModelError(start, error) : undefined;
      if (fallback?.kind === 'switch')
        return this.apply(start, {
          type: 'engine_switched',
          at: this.now(),
          engine: 'command',
          reason: fallback.reason,
        });
      return this.apply(working, {
        type: 'failed',
        at: this.now(),
        code,
        message: this.deps.redactor.redact(fallback?.message ?? errorMessage(error)),
      });
    } finally {
      state.controller.signal.removeEventListener('abort', abortStep);
    }
    if (this.deps.effects.tracing) {
      const turn = working.events.slice(eventsBefore).find((event) => event.type === 'model_turn');
      await this.deps.effects.trace(working, {
        // Only a step that asked the model is a model turn; the command and checks engines mostly do not.
        kind: turn ? 'model_turn' : engine.kind === 'checks' ? 'checks_step' : 'command_step',
        durationMs: clock.now() - began,
        summary:
          outcome.kind === 'answer'
            ? 'answered'
            : `called ${outcome.calls.map((call) => call.name).join(', ')}`,
        ...(turn?.type === 'model_turn'
          ? { promptTokens: turn.promptTokens, completionTokens: turn.completionTokens }
          : {}),
      });
    }
    const tokens = working.usage.promptTokens + working.usage.completionTokens;
    if (tokens > limits.maxTokens) {
      return this.apply(working, {
        type: 'failed',
        at: this.now(),
        code: 'max_tokens',
        message: `Stopped: the run used ${tokens} tokens, past its budget of ${limits.maxTokens} (limits.max_tokens).`,
      });
    }
    if (outcome.kind === 'answer') {
      return this.apply(working, {
        type: 'finished',
        at: this.now(),
        answer: this.deps.redactor.redact(outcome.answer),
        ok: outcome.ok ?? true,
        ...(outcome.details ? { details: outcome.details } : {}),
        ...(wrapUp ? { wrapUp } : {}),
      });
    }
    // A last turn that still asks for calls (the model ignored that it has no tools) is not run.
    if (wrapUp?.reason === 'step_limit') return this.stepLimitReached(working);
    // A step is a plan and its calls: the batch's save covers the plan too. A crash in between re-plans from
    // the last save; write and danger calls save `executing` before they run.
    return this.apply(working, { type: 'calls_planned', at: this.now(), calls: outcome.calls });
  }
}

function actor(request: CancelRequest) {
  return { key: request.key, displayName: request.displayName };
}
