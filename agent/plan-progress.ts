// How far a run's step plan got, read from the run itself: each step's result from its call's events, and the
// steps still to come from their dependencies. Pure, so the engine, the checklist and a restarted worker agree.
import type { Run, RunEvent } from './run.js';
import { isTerminal } from './run.js';
import type { PlanStep } from './step-plan.js';

export const PLAN_STEP_STATES = ['waiting', 'running', 'ok', 'failed', 'refused', 'skipped'] as const;
export type PlanStepState = (typeof PLAN_STEP_STATES)[number];

export interface PlanStepProgress {
  step: PlanStep;
  /** 1-based, across rounds: what people read in the checklist ("step 3 failed"). */
  number: number;
  state: PlanStepState;
  /** The tool's own summary once it ran, or why the step waits or was skipped. */
  summary?: string;
}

/** Errors that say the rules, not the systems, stopped the call: a refusal is not worth a re-plan. */
const REFUSALS = new Set(['permission_denied', 'refused_by_policy']);
const SUMMARY_CHARS = 200;

type ToolResult = Extract<RunEvent, { type: 'tool_result' }>;

/** Every step of the run's plan with its state, in plan order; none for a run without a plan. */
export function planProgress(run: Run): PlanStepProgress[] {
  const plan = run.stepPlan;
  if (!plan) return [];
  const results = new Map<string, ToolResult>();
  for (const event of run.events) if (event.type === 'tool_result') results.set(event.callId, event);
  const byRound = new Map<string, PlanStepProgress>();
  const facts: PlanStepProgress[] = [];
  for (const [index, step] of plan.steps.entries()) {
    const fact = stepFact(run, step, index + 1, results.get(step.callId), (id) =>
      byRound.get(`${step.round}:${id}`),
    );
    byRound.set(`${step.round}:${step.id}`, fact);
    facts.push(fact);
  }
  return facts;
}

function stepFact(
  run: Run,
  step: PlanStep,
  number: number,
  result: ToolResult | undefined,
  earlier: (id: string) => PlanStepProgress | undefined,
): PlanStepProgress {
  if (result) {
    const state: PlanStepState = result.ok
      ? 'ok'
      : REFUSALS.has(result.errorClass ?? '')
        ? 'refused'
        : 'failed';
    const summary = result.errorClass ? result.summary.replace(`${result.errorClass}: `, '') : result.summary;
    return { step, number, state, summary: clip(summary) };
  }
  // Dependencies come before their steps in a valid plan, so they have their facts already.
  const dependencies = step.dependsOn.map(earlier);
  const blocked = dependencies.find((fact) => fact?.state === 'failed' || fact?.state === 'refused');
  if (blocked) {
    const why = blocked.state === 'refused' ? 'was refused' : 'failed';
    return {
      step,
      number,
      state: 'skipped',
      summary: `step ${blocked.number} (${blocked.step.tool}) ${why}`,
    };
  }
  if (step.round < (run.stepPlan?.round ?? 1))
    return { step, number, state: 'skipped', summary: 'replaced by the new plan' };
  if (isTerminal(run.status))
    return { step, number, state: 'skipped', summary: `not run: the run ${endWord(run)}` };
  const skipped = dependencies.find((fact) => fact?.state === 'skipped');
  if (skipped)
    return {
      step,
      number,
      state: 'skipped',
      summary: `step ${skipped.number} (${skipped.step.tool}) was skipped`,
    };
  const ready = step.dependsOn.every((id) => earlier(id)?.state === 'ok');
  if (!ready) return { step, number, state: 'waiting' };
  return { step, number, state: 'running', ...waitingFor(run, step) };
}

/** A step that is under way but waits for a person says for whom. */
function waitingFor(run: Run, step: PlanStep): { summary?: string } {
  if (run.status === 'waiting_for_approval' && run.approval.call.id === step.callId)
    return { summary: run.approval.confirm ? 'waiting for a Confirm' : 'waiting for approval' };
  if (run.status === 'waiting_for_user' && run.question.call.id === step.callId)
    return { summary: 'waiting for an answer' };
  return {};
}

function endWord(run: Run): string {
  switch (run.status) {
    case 'finished':
      return 'ended first';
    case 'cancelled':
      return 'was cancelled';
    case 'expired':
      return 'expired';
    default:
      return 'stopped';
  }
}

function clip(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > SUMMARY_CHARS ? `${line.slice(0, SUMMARY_CHARS - 1)}…` : line;
}
