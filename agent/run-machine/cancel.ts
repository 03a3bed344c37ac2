// A run cancelled by a person: its open question or card closed, naming who cancelled it.
import type { Run } from '../run.js';
import type { RunEffect } from '../run-effect.js';
import { decideCard } from './approval-card.js';
import { closing, end } from './endings.js';
import type { Next, RunMachineEvent } from './events.js';
import { closeQuestion } from './questions.js';

export function cancel(run: Run, event: Extract<RunMachineEvent, { type: 'cancelled' }>): Next {
  const by = event.by.displayName;
  const closed: RunEffect[] =
    run.status === 'waiting_for_user'
      ? closeQuestion(run, { answer: `(cancelled by ${by})`, by, at: event.at, closed: 'cancelled' })
      : run.status === 'waiting_for_approval'
        ? [
            ...decideCard(run, { outcome: 'withdrawn', by, at: event.at }),
            {
              kind: 'audit',
              entry: {
                kind: 'approval_decided',
                actor: event.by,
                approvalId: run.approval.approvalId,
                tool: run.approval.call.name,
                args: run.approval.displayArgs,
                outcome: 'withdrawn',
                reason: 'the run was cancelled',
              },
            },
          ]
        : [];
  const ended = end(
    run,
    'cancelled',
    { cancelled: { by, at: event.at } },
    {
      type: 'cancelled',
      at: event.at,
      step: run.step,
      by,
    },
  );
  return {
    run: ended,
    effects: [
      ...closed,
      // The run's status message says it, once; a second "Cancelled by" message would only repeat it.
      { kind: 'status', text: `Cancelled by ${by}`, tone: 'warning' },
      { kind: 'audit', entry: { kind: 'cancel', actor: event.by } },
      { kind: 'forget_cancel_request' },
      ...closing('cancelled', `cancelled by ${by}`),
    ],
  };
}
