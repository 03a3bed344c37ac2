// A write or danger call that ran: its real outcome is posted as the bot's own result card, and a failure is
// kept on the run, so that neither depends on what the model says afterwards.
import type { FailedAction, PlannedCall, RunBase } from '../run.js';
import type { RunEffect } from '../run-effect.js';
import { formatClock, possessive } from '../run-state-words.js';
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
  const approved = call.approved ? ` (${approvalWords(call.approved)})` : '';
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

/** "approved by Bob", or for a call run under a grant "under Bob's grant until 13:05 UTC". */
export function approvalWords(approved: NonNullable<PlannedCall['approved']>): string {
  if (approved.grantId === undefined) return `approved by ${approved.by}`;
  const until = approved.until === undefined ? '' : ` until ${formatClock(approved.until)}`;
  return `under ${possessive(approved.by)} grant${until}`;
}

/** A call run under a grant: the audit log records the use, and the thread hears whose grant it ran under. */
export function grantUsed(call: PlannedCall, displayArgs: unknown): RunEffect[] {
  const approved = call.approved;
  if (approved?.grantId === undefined) return [];
  const until = approved.until === undefined ? '' : ` (until ${formatClock(approved.until)})`;
  return [
    {
      kind: 'audit',
      entry: {
        kind: 'grant_used',
        approvalId: approved.approvalId,
        tool: call.name,
        args: displayArgs,
        outcome: 'ran',
        reason: `under grant ${approved.grantId} by ${approved.by}`,
      },
    },
    {
      kind: 'post',
      message: {
        kind: 'text',
        text: `${call.name}: run under ${possessive(approved.by)} grant${until}, without a new approval.`,
      },
    },
  ];
}
