// The plan engine's plan as the run stores it: its steps (each one tool call and the steps it waits for) and
// which round it is in. How far it got is not stored here: it is read from the run's own events (plan-progress.ts).
import { z } from 'zod';

/** A plan may be made again once, after a step failed: round 1 is the first plan, round 2 the re-plan. */
export const PLAN_ROUNDS = 2;

export const PlanStepSchema = z.object({
  /** The model's own name for the step, unique in its round; `dependsOn` names steps of the same round by it. */
  id: z.string(),
  round: z.number().int().min(1).max(PLAN_ROUNDS),
  /** The id of the call the step runs as: the same in the transcript, the events and the approval card. */
  callId: z.string(),
  tool: z.string(),
  /** The arguments as the model wrote them, checked against the tool's schema when the plan was made. */
  args: z.record(z.string(), z.unknown()),
  dependsOn: z.array(z.string()),
  /** The model's reason for the step: shown in the checklist and on an approval card. */
  why: z.string().optional(),
});
export type PlanStep = z.infer<typeof PlanStepSchema>;

export const StepPlanSchema = z.object({
  /** Every step of every round, in the order they were planned; a re-plan replaces the steps not yet run. */
  steps: z.array(PlanStepSchema).min(1),
  round: z.number().int().min(1).max(PLAN_ROUNDS),
  /** The checklist message in the thread, updated as the steps finish. */
  messageId: z.string().optional(),
});
export type StepPlan = z.infer<typeof StepPlanSchema>;
