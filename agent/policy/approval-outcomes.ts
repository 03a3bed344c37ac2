// What a click on an approval can lead to: who may settle it, and what each result tells the person.
import type { Principal } from '../principal.js';
import { samePerson } from '../principal.js';
import { type Approval, type ApprovalDecision, formatTime } from './approval-record.js';
import { approvingRolesOf, describeRoles } from './approver-set.js';
import type { AuditActor } from './audit-log.js';
import type { PermissionSettings } from './permission-settings.js';
import { resolveRoles } from './resolve-roles.js';
import { moreApprovers, namesOf } from './two-person-rule.js';
import { CONFIRM_REFUSAL } from './unrequested-call.js';

export type DecideResult =
  /** `approvedBy` names everyone who approved, the decider last, when the call needed more than one approver. */
  | {
      kind: 'decided';
      approval: Approval;
      decision: ApprovalDecision;
      by: AuditActor;
      at: number;
      approvedBy?: string[];
    }
  /** An approval counted toward the two a call needs: the run waits for another approver. */
  | { kind: 'counted'; approvalId: string; by: AuditActor; count: number; needed: number; at: number }
  | { kind: 'already_decided'; decision: ApprovalDecision; by: AuditActor; at: number; approval?: Approval }
  | { kind: 'refused'; reason: string }
  /** `recorded` is true only for the click that moved the approval to expired, so one caller ends the wait. */
  | { kind: 'expired'; approval: Approval; recorded: boolean }
  /** The run was cancelled while the approval waited: nothing may run any more. */
  | { kind: 'withdrawn'; approval: Approval; by: AuditActor; at: number }
  /** No approval has this id: it was never issued, or it ended longer ago than approvals are kept. */
  | { kind: 'not_found'; approvalId: string };

export function settled(approval: Approval): DecideResult {
  if (approval.status === 'expired') return { kind: 'expired', approval, recorded: false };
  if (approval.status === 'withdrawn') {
    const by = approval.decidedBy ?? { key: '?', displayName: 'someone' };
    return { kind: 'withdrawn', approval, by, at: approval.decidedAt ?? approval.createdAt };
  }
  return {
    kind: 'already_decided',
    decision: approval.status === 'approved' ? 'approve' : 'deny',
    by: approval.decidedBy ?? { key: '?', displayName: 'someone' },
    at: approval.decidedAt ?? approval.createdAt,
    approval,
  };
}

/** Why this click may not settle the approval, or undefined when it may. Refusals never consume it. */
export function refusalReason(
  approval: Approval,
  decider: Principal,
  decision: ApprovalDecision,
  settings: PermissionSettings,
): string | undefined {
  // A Confirm is the requester's own: no approver, admin or patrol stands in for them, and they need no role.
  if (approval.confirm) {
    return samePerson(decider, approval.requester)
      ? undefined
      : CONFIRM_REFUSAL(approval.requester.displayName);
  }
  if (samePerson(decider, approval.requester)) {
    // Withdrawing one's own request is always safe; approving it needs someone else, unless settings allow.
    if (decision === 'deny') return undefined;
    if (!settings.allow_self_approval) return 'You asked for this, so someone else has to approve it.';
  }
  if (decider.platform === 'patrol') return 'A patrol cannot approve or deny requests.';
  if (decider.platform === 'alert') return 'An alert investigation cannot approve or deny requests.';
  const place = { conversation: approval.conversation, channelName: approval.channelName };
  const approving = approvingRolesOf(settings, decider, approval.tool, place).filter((role) =>
    approval.approvers.roles.includes(role),
  );
  if (approving.length > 0) return undefined;
  const yours = resolveRoles(settings, decider).join(', ');
  return `Sorry, only someone with ${describeRoles(approval.approvers.roles)} may approve or deny ${approval.tool}; you have ${yours}.`;
}

/** What to tell a person whose click came after someone else's, e.g. "already approved by Ana at …". */
export function decideResultMessage(result: DecideResult): string {
  switch (result.kind) {
    case 'decided': {
      const by = result.approvedBy?.length ? namesOf(result.approvedBy) : result.by.displayName;
      return `${result.decision === 'approve' ? 'Approved' : 'Denied'} by ${by} at ${formatTime(result.at)}.`;
    }
    case 'counted':
      return `Approved by ${result.by.displayName}: ${result.count} of ${result.needed} approvals. It needs ${moreApprovers(result.needed - result.count)} before it runs.`;
    case 'already_decided':
      return `Already ${result.decision === 'approve' ? 'approved' : 'denied'} by ${result.by.displayName} at ${formatTime(result.at)}.`;
    case 'refused':
      return result.reason;
    case 'expired':
      return `This approval expired at ${formatTime(result.approval.expiresAt)}; ask again if it is still needed.`;
    case 'withdrawn':
      return `This request was withdrawn: the run was cancelled by ${result.by.displayName} at ${formatTime(result.at)}, so nothing was run.`;
    case 'not_found': {
      // An approval lives in its run, so it is known for as long as the run is: most often the id was mistyped.
      const id = /^apv_[\w-]{1,100}$/.test(result.approvalId) ? result.approvalId : 'with that id';
      return `There is no approval ${id}. Check the id: its run never asked for it, or the run is no longer kept.`;
    }
  }
}
