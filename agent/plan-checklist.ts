// The checklist message of a run's plan: each step with its state, as the thread shows it.
import type { PlanChecklistMessage } from './chat-port.js';
import { planProgress } from './plan-progress.js';
import type { Run } from './run.js';

/** The run's checklist as of now; undefined for a run without a plan. */
export function planChecklist(run: Run): PlanChecklistMessage | undefined {
  const plan = run.stepPlan;
  if (!plan) return undefined;
  return {
    kind: 'plan',
    runId: run.id,
    round: plan.round,
    steps: planProgress(run).map(({ step, number, state, summary }) => ({
      number,
      tool: step.tool,
      ...(step.why ? { why: step.why } : {}),
      state,
      ...(summary ? { summary } : {}),
    })),
  };
}
