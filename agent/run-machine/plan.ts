// The plan engine's transitions: a plan made (or made again after a failure) is recorded, saved and posted as a
// checklist; and the checklist is updated where its steps change state.
import { planChecklist } from '../plan-checklist.js';
import { isTerminal, type Run, type RunIn } from '../run.js';
import type { RunEffect } from '../run-effect.js';
import type { Next, RunMachineEvent, RunMachineEventType } from './events.js';
import { withEvent } from './shape.js';

export function planMade(
  run: RunIn<'running'>,
  event: Extract<RunMachineEvent, { type: 'plan_made' }>,
): Next {
  const messageId = run.stepPlan?.messageId;
  const { plan } = event;
  const next = withEvent(
    { ...run, stepPlan: { ...plan, ...(messageId ? { messageId } : {}) } },
    {
      type: 'plan_made',
      at: event.at,
      step: run.step,
      round: plan.round,
      steps: plan.steps
        .filter((step) => step.round === plan.round)
        .map((step) => ({ callId: step.callId, tool: step.tool, dependsOn: step.dependsOn })),
    },
  );
  const checklist = planChecklist(next)!;
  const fresh = plan.steps.filter((step) => step.round === plan.round);
  return {
    run: next,
    effects: [
      // A new plan after a failure rewrites the checklist the thread already has.
      messageId
        ? { kind: 'update', messageId, message: checklist }
        : { kind: 'post', message: checklist, slot: 'plan_checklist' },
      // Saved at once: a restart goes on with this plan and does not ask the model for another.
      { kind: 'save' },
      {
        kind: 'trace',
        record: {
          kind: 'plan_made',
          summary:
            `${plan.round > 1 ? 're-planned' : 'planned'} ${fresh.length} ${fresh.length === 1 ? 'step' : 'steps'}: ${fresh.map((step) => step.tool).join(', ')}`.slice(
              0,
              200,
            ),
          durationMs: 0,
        },
      },
    ],
  };
}

/** Events after which a plan's steps may stand otherwise: a level or an action done, a wait begun or ended. */
const CHECKLIST_EVENTS: ReadonlySet<RunMachineEventType> = new Set([
  'step_completed',
  'approval_requested',
  'approval_decided',
  'approval_expired',
  'question_asked',
  'answer_received',
]);

/**
 * The transition's effects with the checklist's update first, when the run has a posted checklist and the event
 * may change how its steps stand (or ends the run, which skips the steps not run): the thread sees the steps
 * before the answer.
 */
export function withChecklistUpdate(before: Run, event: RunMachineEvent, next: Next): Next {
  const messageId = next.run.stepPlan?.messageId;
  if (!messageId || event.type === 'plan_made') return next;
  const ended = isTerminal(next.run.status) && !isTerminal(before.status);
  if (!ended && !CHECKLIST_EVENTS.has(event.type)) return next;
  const message = planChecklist(next.run)!;
  const update: RunEffect = { kind: 'update', messageId, message };
  return { run: next.run, effects: [update, ...next.effects] };
}
