// A write or danger call that ran: its real outcome is posted as the bot's own result card, and a failure is
// kept on the run, so that neither depends on what the model says afterwards.
import type { FailedAction, RunBase } from '../run.js';
import type { RunEffect } from '../run-effect.js';
import type { Next, RunMachineEvent } from './events.js';

export function actionFinished(
  recorded: { run: RunBase; effects: RunEffect[] },
  event: Extract<RunMachineEvent, { type: 'execution_finished' }>,
): Next {
  const { call, outcome } = event;
  const queue = recorded.run.queue.filter((queued) => queued.id !== call.id);
  const { signature } = outcome;
  // A failure stays on the run unless the very same call (tool and arguments) later succeeds.
  const failedActions: FailedAction[] = outcome.ok
    ? recorded.run.failedActions.filter((failed) => !signature || failed.signature !== signature)
    : [
        ...recorded.run.failedActions,
        {
          callId: call.id,
          tool: call.name,
          summary: outcome.summary,
          at: event.at,
          ...(signature ? { signature } : {}),
        },
      ];
  const run = { ...recorded.run, queue, failedActions, status: 'running' as const };
  // The command engine's answer is this result already: it would show twice.
  if (run.engine === 'command') return { run, effects: recorded.effects };
  const approved = call.approved ? ` (approved by ${call.approved.by})` : '';
  const card: RunEffect = {
    kind: 'post',
    message: {
      kind: 'result',
      runId: run.id,
      text: `${call.name}${approved} ${outcome.ok ? 'succeeded' : 'failed'}: ${outcome.summary}`,
      ok: outcome.ok,
      details: [
        {
          tool: call.name,
          summary: outcome.summary,
          ...(outcome.data !== undefined ? { data: outcome.data } : {}),
        },
      ],
    },
  };
  return { run, effects: [card, ...recorded.effects] };
}
