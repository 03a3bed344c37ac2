// Takes runs from the RunQueue and steps each one under its lease until it ends or waits for a person:
// plan, run the calls, check the guards. Every state change goes through the run machine.

import type { CallReviewer } from './call-review/call-reviewer.js';
import type { Clock } from './clock.js';
import type { Engine } from './engines/engine.js';
import { ErrorCode, errorMessage, SystemError } from './errors.js';
import type { KernelLimits } from './kernel-options.js';
import type { Logger } from './logger.js';
import type { ModelFallback } from './model-fallback.js';
import type { Redactor } from './redaction.js';
import type { EngineKind, Run } from './run.js';
import { type GrantLookup, RunCalls } from './run-calls.js';
import type { CancelRequest, RunCancels } from './run-cancels.js';
import type { RunEffects } from './run-effects.js';
import type { RunLeases } from './run-leases.js';
import { type RunMachineEvent, transition } from './run-machine.js';
import { RunPlanner } from './run-planner.js';
import type { RunRepository } from './run-repository.js';
import type { StepExecutor } from './step-executor.js';
import { buildThreadSummary } from './thread-summary.js';
import type { Timers } from './timers.js';

export interface RunWorkerDeps {
  runs: RunRepository;
  leases: RunLeases;
  effects: RunEffects;
  cancels: RunCancels;
  executor: StepExecutor;
  engines: Partial<Record<EngineKind, Engine>>;
  /** False when no approval settings were given: a call that needs an approver is then refused. */
  approvalsEnabled: boolean;
  /** Approval grants in force: a call one covers runs without a new approval. */
  grants?: GrantLookup;
  /** The grant lengths an approver may pick (`permissions.grant_durations`). */
  grantDurationsMs?: readonly number[];
  /** Reviews a risky call before its approval is asked for; absent without a model or with it switched off. */
  reviewer?: CallReviewer;
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
  private readonly planner: RunPlanner;

  constructor(private readonly deps: RunWorkerDeps) {
    this.calls = new RunCalls({ ...deps, apply: (run, event) => this.apply(run, event) });
    this.planner = new RunPlanner({ ...deps, apply: (run, event) => this.apply(run, event) });
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
      // The thread's context is read when the run starts, not when it was asked for: a run queued behind another
      // sees how that one ended.
      const threadSummary = run.status === 'queued' ? await this.threadBefore(run) : undefined;
      const started = await this.apply(run, {
        type: 'work_started',
        at: this.now(),
        ...(threadSummary ? { threadSummary } : {}),
      });
      await this.drive(started, engine, state);
    } finally {
      stopBeating();
      unwatch();
      this.stepping.delete(runId);
      finished();
      if (this.deps.leases.heldHere(runId)) await this.deps.leases.release(runId);
    }
  };

  /** What was asked in the run's thread before it, and how each ended; undefined for a thread's first run. */
  private async threadBefore(run: Run): Promise<string | undefined> {
    const ids = await this.deps.runs.threadRunIds(run.conversation).catch((): string[] => []);
    const at = ids.indexOf(run.id);
    const earlier = at === -1 ? ids.filter((id) => id !== run.id) : ids.slice(0, at);
    return earlier.length > 0 ? buildThreadSummary(this.deps.runs, earlier) : undefined;
  }

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
          : await this.planner.plan(run, current, {
              signal: state.controller.signal,
              cancelled: () => state.cancel,
            });
    }
  }
}

function actor(request: CancelRequest) {
  return { key: request.key, displayName: request.displayName };
}
