// A run waits for an approver: the decision (or the first of two counted), the expiry, and a call that will not
// run. Each is a pure transition under the run's lease; the request and its card are in approval-card.ts.
import { moreApprovers, namesOf } from '../policy/two-person-rule.js';
import type { PlannedCall, Run, RunIn } from '../run.js';
import type { RunEffect } from '../run-effect.js';
import { type RecordedOutcome, recordOutcome } from '../run-record-call.js';
import { formatClock } from '../run-state-words.js';
import { approvalCardOf, auditDecision, decideCard, UNBOUND_MESSAGE } from './approval-card.js';
import { closing, end, fail } from './endings.js';
import type { Next, RunMachineEvent } from './events.js';
import { base, to, withEvent } from './shape.js';

/**
 * An approval that counts toward a call needing more than it has (the two-person rule): it is kept with the run,
 * the card shows who has approved, and the run keeps waiting. The same person counted twice changes nothing.
 */
export function approvalCounted(
  run: RunIn<'waiting_for_approval'>,
  event: Extract<RunMachineEvent, { type: 'approval_counted' }>,
): Next {
  const pending = run.approval;
  if (pending.approvedBy.some((approval) => approval.key === event.by.key)) return { run, effects: [] };
  const approvedBy = [...pending.approvedBy, { ...event.by, at: event.at }];
  const count = approvedBy.length;
  const needed = pending.approvals;
  const counted = withEvent(
    { ...run, approval: { ...pending, approvedBy } },
    {
      type: 'approval_counted',
      at: event.at,
      step: run.step,
      approvalId: event.approvalId,
      by: event.by.key,
      byName: event.by.displayName,
      count,
      needed,
    },
  );
  const messageId = pending.cardMessageId;
  const progress = `${count} of ${needed} approvals: ${namesOf(approvedBy.map((approval) => approval.displayName))}`;
  return {
    run: counted,
    effects: [
      ...(messageId ? [{ kind: 'update' as const, messageId, message: approvalCardOf(counted) }] : []),
      auditDecision(run, 'approval_decided', event.by, `approved_${count}_of_${needed}`),
      {
        kind: 'status',
        text: `Waiting for approval of ${pending.call.name} (${progress}; it needs ${moreApprovers(needed - count)})`,
        tone: 'warning',
      },
      {
        kind: 'trace',
        record: {
          kind: 'approval',
          tool: pending.call.name,
          summary: progress.slice(0, 200),
          by: event.by.key,
          ok: true,
          durationMs: 0,
        },
      },
      { kind: 'save' },
    ],
  };
}

export function approvalDecided(
  run: RunIn<'waiting_for_approval'>,
  event: Extract<RunMachineEvent, { type: 'approval_decided' }>,
): Next {
  const { call, approvedBy } = run.approval;
  const outcome = event.decision === 'approve' ? 'approved' : 'denied';
  // Under the two-person rule the card and the call name everyone who approved: "Approved by Bob and Dave".
  const approvers =
    event.decision === 'approve'
      ? namesOf([
          ...approvedBy
            .filter((approval) => approval.key !== event.by.key)
            .map((approval) => approval.displayName),
          event.by.displayName,
        ])
      : event.by.displayName;
  // An approval whose binding fails says so on the card and in the thread, not only to the model: otherwise the
  // card reads "Approved" while nothing ran.
  const unbound = event.decision === 'approve' && !event.bound;
  const reason = unbound ? UNBOUND_MESSAGE : event.reason;
  const card = [
    ...decideCard(run, {
      outcome,
      by: approvers,
      at: event.at,
      ...(reason ? { reason } : {}),
      ...(event.granted && !unbound ? { granted: event.granted } : {}),
    }),
    auditDecision(run, 'approval_decided', event.by, outcome, reason),
  ];
  const decided = withEvent(run, {
    type: 'approval_decided',
    at: event.at,
    step: run.step,
    approvalId: event.approvalId,
    decision: outcome,
    by: event.by.key,
    byName: event.by.displayName,
    ...(event.reason ? { reason: event.reason } : {}),
  });
  const traced: RunEffect = {
    kind: 'trace',
    record: {
      kind: 'approval',
      tool: call.name,
      summary: `${outcome} by ${approvers}${reason ? `: ${reason}` : ''}`.slice(0, 200),
      by: event.by.key,
      ok: outcome === 'approved' && !unbound,
      durationMs: 0,
    },
  };
  if (event.decision === 'approve' && event.bound) {
    const approved = { ...call, approved: { approvalId: event.approvalId, by: approvers } };
    const queue = [approved, ...run.queue.filter((queued) => queued.id !== call.id)];
    return {
      run: to({ ...decided, queue }, 'queued', {}),
      effects: [...card, traced, { kind: 'save' }, { kind: 'enqueue' }],
    };
  }
  const message = event.bound
    ? `Denied by ${event.by.displayName}${event.reason ? `: ${event.reason}` : '.'}`
    : UNBOUND_MESSAGE;
  const told: RunEffect[] = unbound
    ? [{ kind: 'post', message: { kind: 'text', text: `${call.name}: ${message}`, tone: 'warning' } }]
    : [];
  return refuseAndGoOn(decided, call, message, event.stopOnDenial, event.at, [...card, traced, ...told]);
}

export function approvalExpired(
  run: RunIn<'waiting_for_approval'>,
  event: Extract<RunMachineEvent, { type: 'approval_expired' }>,
): Next {
  const { call, expiresAt } = run.approval;
  const card = [
    ...decideCard(run, { outcome: 'expired', by: 'nobody', at: expiresAt }),
    auditDecision(
      run,
      'approval_expired',
      { key: 'system:expiry', displayName: 'expiry' },
      'expired',
      `expired at ${formatClock(expiresAt)}`,
    ),
  ];
  const decided = withEvent(run, {
    type: 'approval_decided',
    at: event.at,
    step: run.step,
    approvalId: event.approvalId,
    decision: 'expired',
    by: 'expiry',
  });
  const message = `The approval for ${call.name} expired before anyone decided (at ${formatClock(expiresAt)}), so it was not run.`;
  const traced: RunEffect = {
    kind: 'trace',
    record: {
      kind: 'approval',
      tool: call.name,
      summary: 'expired: nobody decided',
      ok: false,
      durationMs: 0,
    },
  };
  if (!event.stopOnDenial) {
    // The thread hears it too, not only the model: the run goes on without the call.
    const told: RunEffect = { kind: 'post', message: { kind: 'text', text: message, tone: 'warning' } };
    return refuseAndGoOn(decided, call, message, false, event.at, [...card, traced, told]);
  }
  const text = `${message} Ask again if it is still needed.`;
  const ended = end(
    decided,
    'expired',
    { expired: { message: text, at: event.at } },
    {
      type: 'expired',
      at: event.at,
      step: run.step,
      message: text,
    },
  );
  return {
    run: ended,
    effects: [
      ...card,
      traced,
      { kind: 'post', message: { kind: 'text', text, tone: 'warning' } },
      { kind: 'status', text: 'Expired', tone: 'warning' },
      ...closing('expired', text),
    ],
  };
}

/** A call that will not run: the model is told why, and the run stops or goes on as on_denial says. */
export function refuseAndGoOn(
  run: Run,
  call: PlannedCall,
  message: string,
  stop: boolean,
  at: number,
  before: RunEffect[],
): Next {
  // Shown as the card showed it (redacted, declared secrets masked), never as the call holds it to run.
  const shown = run.status === 'waiting_for_approval' ? run.approval.displayArgs : undefined;
  const record = { ...refusedRecord(call.name, message), displayArgs: shown };
  const refused = recordOutcome(base(run), call, record, at);
  const queue = refused.run.queue.filter((queued) => queued.id !== call.id);
  const next = { ...refused.run, queue, status: 'running' as const };
  if (stop) {
    const failed = fail(next, 'denied', `${message} The run stopped (permissions.on_denial is stop).`, at);
    return { run: failed.run, effects: [...before, ...refused.effects, ...failed.effects] };
  }
  return {
    run: to(next, 'queued', {}),
    effects: [...before, ...refused.effects, { kind: 'save' }, { kind: 'enqueue' }],
  };
}

export function refusedRecord(tool: string, message: string): RecordedOutcome {
  return {
    content: JSON.stringify({
      tool,
      ok: false,
      error: {
        class: 'permission_denied',
        message,
        what_to_do: 'Someone else must do this: tell the user who can, and do not retry.',
      },
    }),
    ok: false,
    summary: `permission_denied: ${message}`,
    errorClass: 'permission_denied',
    repeated: false,
    durationMs: 0,
    executed: false,
    displayArgs: undefined,
  };
}
