// One planning step of a run: the engine's next move, or why there is none (the step limit, a stuck run, a
// model that is down), turned into the run machine's event. The worker drives the steps; this makes each plan.
import type { Clock } from './clock.js';
import type { Engine } from './engines/engine.js';
import { errorMessage, OpsbotError } from './errors.js';
import type { KernelLimits } from './kernel-options.js';
import type { ModelFallback } from './model-fallback.js';
import type { Redactor } from './redaction.js';
import type { EngineKind, Run } from './run.js';
import type { CancelRequest } from './run-cancels.js';
import type { RunEffects } from './run-effects.js';
import { isModelEngine } from './run-engine-kind.js';
import type { RunMachineEvent } from './run-machine.js';
import { errorsMet, outcomeProblems } from './run-outcomes.js';
import { noProgress, wrapUpFor } from './run-progress.js';
import { StepProgress } from './step-progress.js';
import type { TraceKind } from './trace.js';

export interface RunPlannerDeps {
  effects: RunEffects;
  limits: KernelLimits;
  clock: Clock;
  redactor: Redactor;
  fallback?: ModelFallback;
  apply(run: Run, event: RunMachineEvent): Promise<Run>;
}

/** What the planner needs of the worker's hold on the run: its signal, and a cancel it has heard of. */
export interface Stepping {
  signal: AbortSignal;
  cancelled(): CancelRequest | undefined;
}

export class RunPlanner {
  constructor(private readonly deps: RunPlannerDeps) {}

  private now(): number {
    return this.deps.clock.now();
  }

  private apply(run: Run, event: RunMachineEvent): Promise<Run> {
    return this.deps.apply(run, event);
  }

  /** The run stops at its step limit, saying which errors it met on the way: not only "raise the limit". */
  stepLimitReached(run: Run): Promise<Run> {
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

  async plan(start: Run, engine: Engine, stepping: Stepping): Promise<Run> {
    const { limits, clock } = this.deps;
    if (start.step >= limits.maxSteps) return this.stepLimitReached(start);
    // A model run's last turn (at the step limit, or told to stop) answers without tools. A react run that is not
    // getting anywhere asks its requester before it spends more steps; a plan's steps are bounded by the plan.
    const wrapUp = isModelEngine(engine.kind) ? wrapUpFor(start, limits.maxSteps) : undefined;
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
    const abortStep = () => step.abort(stepping.signal.reason);
    stepping.signal.addEventListener('abort', abortStep, { once: true });
    const progress = new StepProgress(this.deps.effects, working);
    try {
      outcome = await engine.plan(working, step.signal, progress, wrapUp ? { wrapUp } : {});
      await progress.done();
    } catch (error) {
      await progress.done(false);
      const cancel = stepping.cancelled();
      if (cancel) return this.apply(working, { type: 'cancelled', at: this.now(), by: actor(cancel) });
      const code = error instanceof OpsbotError ? error.code : 'engine_error';
      const fallback = isModelEngine(engine.kind)
        ? this.deps.fallback?.afterModelError(start, error)
        : undefined;
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
      stepping.signal.removeEventListener('abort', abortStep);
    }
    if (this.deps.effects.tracing) {
      const turn = working.events.slice(eventsBefore).find((event) => event.type === 'model_turn');
      await this.deps.effects.trace(working, {
        // Only a step that asked the model is a model turn; the command and checks engines mostly do not.
        kind: turn ? 'model_turn' : STEP_TRACE_KINDS[engine.kind],
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
    // A plan made on this turn is recorded (and its checklist posted) before its first calls are planned.
    const planned =
      outcome.kind === 'calls' && outcome.stepPlan
        ? await this.apply(working, { type: 'plan_made', at: this.now(), plan: outcome.stepPlan })
        : working;
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
    if (wrapUp) {
      return this.apply(working, {
        type: 'finished',
        at: this.now(),
        answer: 'The model asked for more tools instead of answering, so there is no answer from it.',
        ok: false,
        wrapUp,
      });
    }
    // A step is a plan and its calls: the batch's save covers the plan too. A crash in between re-plans from
    // the last save; write and danger calls save `executing` before they run.
    return this.apply(planned, { type: 'calls_planned', at: this.now(), calls: outcome.calls });
  }
}

/** What a step that asked no model is traced as, by engine. */
const STEP_TRACE_KINDS: Record<EngineKind, TraceKind> = {
  react: 'command_step',
  command: 'command_step',
  checks: 'checks_step',
  plan: 'plan_step',
};

function actor(request: CancelRequest) {
  return { key: request.key, displayName: request.displayName };
}
