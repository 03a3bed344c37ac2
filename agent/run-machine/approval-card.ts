// An approval as the run asks for it: the request event with its binding and card, the card built again from the
// run, and the audit entry of its end. Pure: the decisions that use them are in approvals.ts.
import type { ApprovalNeed } from '../approval-need.js';
import type { CallReview } from '../call-review/call-review.js';
import { durationSetting } from '../duration-text.js';
import { bindingHash, newApprovalId } from '../policy/approval-record.js';
import { type ApproverSet, describeApprovers } from '../policy/approver-set.js';
import { type GrantOffer, PATTERNS_ON_A_CARD } from '../policy/grant-offer.js';
import { describePattern } from '../policy/grant-patterns.js';
import { freeTextParameters, maskSecretArguments } from '../policy/secret-arguments.js';
import type { Redactor } from '../redaction.js';
import type { PlannedCall, Run, RunIn } from '../run.js';
import type { RunEffect } from '../run-effect.js';
import { callPreview, previewOf } from './call-preview.js';
import type { ApprovalCard, CardDecision, RunMachineEvent } from './events.js';

export const UNBOUND_MESSAGE = 'The approved call does not match the call waiting to run, so it was not run.';

/**
 * A call that needs an approver, as the event that makes the run wait: a new approval id naming the run, the
 * binding to the exact call and requester, who may approve, and the card, with the arguments and reason redacted.
 */
export function requestApproval(
  run: Run,
  call: PlannedCall,
  need: ApprovalNeed,
  at: number,
  redactor: Redactor,
  /** The reviewer's verdict, or why there is none; absent when the call was not reviewed. */
  review?: CallReview,
): Extract<RunMachineEvent, { type: 'approval_requested' }> {
  const approvalId = newApprovalId(run.id);
  const expiresAt = at + need.ttlMs;
  const displayArgs = redactor.redactValue(maskSecretArguments(need.tool, need.args));
  const freeText = freeTextParameters(need.tool);
  const reason = redactor.redact(call.reason ?? '');
  const approvals = need.approvals;
  const preview = callPreview(need.tool, need.args, redactor);
  return {
    type: 'approval_requested',
    at,
    call: { ...call, args: need.args },
    approvalId,
    expiresAt,
    decides: {
      bindingHash: bindingHash({
        runId: run.id,
        step: run.step,
        tool: need.tool.name,
        args: need.args,
        requester: run.principal,
      }),
      approvers: need.approvers,
      reason,
      displayArgs,
      approvals,
      ...preview,
      ...(freeText.length > 0 ? { freeText } : {}),
      ...(need.grantOffer ? { grantOffer: need.grantOffer } : {}),
      ...(need.confirm ? { confirm: true as const } : {}),
      ...(review ? { review } : {}),
    },
    card: {
      kind: 'approval',
      runId: run.id,
      approvalId,
      requester: run.principal.displayName,
      tool: need.tool.name,
      argumentsJson: JSON.stringify(displayArgs, null, 2),
      reason,
      approvers: [decidersOf(need.approvers, run.principal, need.confirm)],
      expiresAt,
      ...(approvals > 1 ? { progress: { needed: approvals, approvedBy: [] } } : {}),
      ...preview,
      ...(freeText.length > 0 ? { freeText } : {}),
      ...(need.confirm ? { confirm: true } : {}),
      ...(review ? { review } : {}),
      ...grantButtonsOf(need.grantOffer),
    },
  };
}

/** The card of the approval the run waits for, as it was posted: built again from the run. */
export function approvalCardOf(run: RunIn<'waiting_for_approval'>): ApprovalCard {
  const pending = run.approval;
  return {
    kind: 'approval',
    runId: run.id,
    approvalId: pending.approvalId,
    requester: run.principal.displayName,
    tool: pending.call.name,
    argumentsJson: JSON.stringify(pending.displayArgs ?? pending.call.args, null, 2),
    reason: pending.reason ?? '',
    approvers: pending.approvers ? [decidersOf(pending.approvers, run.principal, pending.confirm)] : [],
    expiresAt: pending.expiresAt,
    ...(pending.approvals > 1
      ? {
          progress: {
            needed: pending.approvals,
            approvedBy: pending.approvedBy.map((approval) => approval.displayName),
          },
        }
      : {}),
    ...previewOf(pending),
    ...(pending.freeText?.length ? { freeText: pending.freeText } : {}),
    ...(pending.confirm ? { confirm: true } : {}),
    ...(pending.review ? { review: pending.review } : {}),
    ...grantButtonsOf(pending.grantOffer),
  };
}

/** Who may decide, as the card says it: a Confirm is the requester's alone. */
function decidersOf(approvers: ApproverSet, requester: Run['principal'], confirm: true | undefined): string {
  return confirm
    ? `${requester.displayName} only (who asked for this run)`
    : describeApprovers(approvers, requester);
}

/** The card's "approve for a while" choices: lengths as settings text, and the patterns a button may carry. */
function grantButtonsOf(offer: GrantOffer | undefined): Pick<ApprovalCard, 'grants'> {
  if (!offer) return {};
  return {
    grants: {
      durations: offer.durationsMs.map(durationSetting),
      patterns: offer.patterns
        .slice(0, PATTERNS_ON_A_CARD)
        .map((pattern) => ({ name: pattern.name, text: describePattern(pattern) })),
    },
  };
}

export function decideCard(run: RunIn<'waiting_for_approval'>, decision: CardDecision): RunEffect[] {
  const messageId = run.approval.cardMessageId;
  return messageId ? [{ kind: 'update', messageId, message: { ...approvalCardOf(run), decision } }] : [];
}

/** The audit entry of an approval's end, written with the transition that ends it. */
export function auditDecision(
  run: RunIn<'waiting_for_approval'>,
  kind: 'approval_decided' | 'approval_expired',
  actor: { key: string; displayName: string },
  outcome: string,
  reason?: string,
): RunEffect {
  const pending = run.approval;
  return {
    kind: 'audit',
    entry: {
      kind,
      actor,
      approvalId: pending.approvalId,
      tool: pending.call.name,
      args: pending.displayArgs,
      ...(run.conversation.channelName ? { channelName: run.conversation.channelName } : {}),
      outcome,
      ...(reason ? { reason } : {}),
    },
  };
}
