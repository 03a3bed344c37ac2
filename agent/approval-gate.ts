// Where a call that needs approval turns into an approval request with its card, and where an approved call
// is claimed for its one execution. Without approval settings, such calls are refused.
import type { Clock } from './clock.js';
import { type Approval, formatTime } from './policy/approval-record.js';
import type { ApprovalBook } from './policy/approvals.js';
import { type ApproverSet, describeApprovers } from './policy/approver-set.js';
import type { Redactor } from './redaction.js';
import type { PlannedCall, Run } from './run.js';
import type { ApprovalCard, RunMachineEvent } from './run-machine.js';
import type { Tool } from './tool.js';

export interface ApprovalNeed {
  tool: Tool;
  args: Record<string, unknown>;
  approvers: ApproverSet;
  ttlMs: number;
}

export type ApprovalRequestResult =
  | { kind: 'requested'; event: Extract<RunMachineEvent, { type: 'approval_requested' }> }
  | { kind: 'refused'; message: string };

export interface ApprovalGate {
  request(run: Run, call: PlannedCall, need: ApprovalNeed): Promise<ApprovalRequestResult>;
  /** True for exactly one caller across replicas: the one that may run the approved call. */
  claimExecution(call: PlannedCall): Promise<boolean>;
}

export const noApprovals: ApprovalGate = {
  async request(_run, call) {
    return { kind: 'refused', message: `${call.name} needs approval, and approvals are not set up here.` };
  },
  async claimExecution() {
    return false;
  },
};

export function approvalCard(approval: Approval): ApprovalCard {
  return {
    kind: 'approval',
    runId: approval.runId,
    approvalId: approval.id,
    requester: approval.requester.displayName,
    tool: approval.tool,
    argumentsJson: JSON.stringify(approval.args, null, 2),
    reason: approval.reason,
    approvers: [describeApprovers(approval.approvers)],
    expiresAt: approval.expiresAt,
  };
}

export class BookApprovalGate implements ApprovalGate {
  constructor(
    private readonly book: ApprovalBook,
    private readonly redactor: Redactor,
    private readonly clock: Clock,
  ) {}

  async request(run: Run, call: PlannedCall, need: ApprovalNeed): Promise<ApprovalRequestResult> {
    const approval = await this.book.request({
      runId: run.id,
      step: run.step,
      callId: call.id,
      tool: need.tool.name,
      args: need.args,
      displayArgs: this.redactor.redactValue(need.args),
      requester: run.principal,
      reason: this.redactor.redact(call.reason ?? ''),
      approvers: need.approvers,
      ttlMs: need.ttlMs,
      conversation: run.conversation,
      ...(run.conversation.channelName ? { channelName: run.conversation.channelName } : {}),
    });
    return {
      kind: 'requested',
      event: {
        type: 'approval_requested',
        at: this.clock.now(),
        call: { ...call, args: need.args },
        approvalId: approval.id,
        expiresAt: approval.expiresAt,
        card: approvalCard(approval),
        decides: {
          bindingHash: approval.bindingHash,
          approvers: approval.approvers,
          reason: approval.reason,
          displayArgs: approval.args,
        },
      },
    };
  }

  async claimExecution(call: PlannedCall): Promise<boolean> {
    if (!call.approved) return false;
    const approval = await this.book.get(call.approved.approvalId);
    return approval ? this.book.claimExecution(approval) : false;
  }
}

export { formatTime };
