// An Engine decides a run's next move: calls to make, or the final answer. One class per mode.
import type { ModelWait } from '../model/model-port.js';
import type { ModelRetry } from '../model/model-retry.js';
import type { EngineKind, PlannedCall, Run } from '../run.js';
import type { WrapUp } from '../run-progress.js';
import type { StepPlan } from '../step-plan.js';

export type PlanOutcome =
  | {
      kind: 'calls';
      calls: PlannedCall[];
      /** A plan made on this turn (the plan engine's): the kernel records and posts it before the calls run. */
      stepPlan?: Omit<StepPlan, 'messageId'>;
    }
  | {
      kind: 'answer';
      answer: string;
      details?: { tool: string; summary: string; data?: unknown }[];
      /** False when the answer reports a failure (a command that did not run, or a check that failed). */
      ok?: boolean;
    };

/** What an engine may report while it plans, for the thread to show. */
export interface PlanProgress {
  /** A model call failed and will be tried again. */
  modelRetrying(retry: ModelRetry): void;
  /** A model call waits for this process's rate limit before it is sent. */
  modelWaiting(wait: ModelWait): void;
  /** A model call that waited is sent. */
  modelAdmitted(): void;
}

/** How the kernel wants this turn planned. */
export interface PlanOptions {
  /** The turn must answer without tools, from what the run has found: its last step, or its requester said stop. */
  wrapUp?: WrapUp;
}

export interface Engine {
  readonly kind: EngineKind;
  /** Called when the run has no queued calls and nothing pending. May update run.messages and run.usage. */
  plan(run: Run, signal: AbortSignal, progress?: PlanProgress, options?: PlanOptions): Promise<PlanOutcome>;
}
