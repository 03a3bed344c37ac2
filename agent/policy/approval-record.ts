// An approval as people and clicks see it, read from its run: the run holds what is pending, and its events what
// was decided. Its id names its run, so a click finds the run without an index. Nothing here is stored apart.
import { createHash, randomBytes } from 'node:crypto';
import type { Conversation } from '../conversation.js';
import { type Principal, principalKey } from '../principal.js';
import type { Run } from '../run.js';
import { stableJson } from '../stable-json.js';
import type { ApproverSet } from './approver-set.js';
import type { AuditActor } from './audit-log.js';
import { namesOf } from './two-person-rule.js';

export type ApprovalDecision = 'approve' | 'deny';

/** withdrawn: the run was cancelled while the approval waited; decidedBy is who cancelled it. */
export type ApprovalStatus = 'pending' | 'approved' | 'denied' | 'expired' | 'withdrawn';

export interface Approval {
  id: string;
  runId: string;
  step: number;
  callId: string;
  tool: string;
  /** As shown on the card: redacted. */
  args: unknown;
  requester: Principal;
  /** The model's stated reason for the call. */
  reason: string;
  approvers: ApproverSet;
  conversation: Conversation;
  channelName?: string;
  createdAt: number;
  expiresAt: number;
  status: ApprovalStatus;
  decidedBy?: AuditActor;
  decidedAt?: number;
  decisionReason?: string;
  /** A Confirm: only the requester may decide it (see unrequested-call.ts). */
  confirm?: boolean;
}

/**
 * `apv_<6 letters or digits>_<run id>`: the run id is read back from it, so a button or `opsbot approve` finds the
 * run without any index. The run ids opsbot makes (`run_` and 16 hex digits) keep it at 31 characters, inside
 * Discord's 100 for a button id with its `approve:` prefix.
 */
export function newApprovalId(runId: string): string {
  const letters = randomBytes(8).toString('base64url').replace(/[-_]/g, '').padEnd(6, '0').slice(0, 6);
  return `apv_${letters}_${runId}`;
}

const APPROVAL_ID = /^apv_([A-Za-z0-9]{6})_([A-Za-z0-9_-]{1,80})$/;

/** The run an approval id names; undefined for a malformed id or one made before ids named their run. */
export function runIdOfApproval(approvalId: string): string | undefined {
  return APPROVAL_ID.exec(approvalId)?.[2];
}

export interface BoundCall {
  runId: string;
  step: number;
  tool: string;
  args: unknown;
  requester: Pick<Principal, 'platform' | 'userId'>;
}

export function bindingHash(call: BoundCall): string {
  const material = JSON.stringify([
    'opsbot-approval-v1',
    call.runId,
    call.step,
    call.tool,
    // Key order must not change the hash: the model may emit the same arguments in any order.
    stableJson(call.args),
    principalKey(call.requester),
  ]);
  return createHash('sha256').update(material).digest('hex');
}

/** Whether the call about to run is exactly the one that was approved. */
export function verifyBinding(approval: { bindingHash?: string | undefined }, call: BoundCall): boolean {
  return approval.bindingHash !== undefined && bindingHash(call) === approval.bindingHash;
}

export function formatTime(at: number): string {
  return `${new Date(at).toISOString().replace('T', ' ').slice(0, 19)} UTC`;
}

const DECIDED: Record<string, ApprovalStatus> = {
  approved: 'approved',
  denied: 'denied',
  expired: 'expired',
  withdrawn: 'withdrawn',
};

/**
 * The approval with this id, as its run tells it: pending while the run waits for it, else as its events
 * recorded it (requested, then decided, expired or withdrawn). Undefined when the run never asked for it.
 */
export function approvalOfRun(run: Run, approvalId: string): Approval | undefined {
  const place = {
    requester: run.principal,
    conversation: run.conversation,
    ...(run.conversation.channelName ? { channelName: run.conversation.channelName } : {}),
  };
  if (run.status === 'waiting_for_approval' && run.approval.approvalId === approvalId) {
    const pending = run.approval;
    return {
      id: approvalId,
      runId: run.id,
      step: run.step,
      callId: pending.call.id,
      tool: pending.call.name,
      args: pending.displayArgs ?? pending.call.args,
      reason: pending.reason ?? '',
      approvers: pending.approvers ?? { roles: [], identities: [], includesDefaultRole: false },
      createdAt: pending.requestedAt,
      expiresAt: pending.expiresAt,
      status: 'pending',
      ...(pending.confirm ? { confirm: true } : {}),
      ...place,
    };
  }
  const requested = run.events.find(
    (event) => event.type === 'approval_requested' && event.approvalId === approvalId,
  );
  if (requested?.type !== 'approval_requested') return undefined;
  const decided = run.events.find(
    (event) => event.type === 'approval_decided' && event.approvalId === approvalId,
  );
  const cancelled = run.events.find((event) => event.type === 'cancelled' && event.at >= requested.at);
  // An approved call keeps its id when it runs, so its arguments are those its run recorded.
  const ran = run.events.find((event) => event.type === 'tool_call' && event.callId === requested.callId);
  const base: Approval = {
    id: approvalId,
    runId: run.id,
    step: requested.step,
    callId: requested.callId ?? '',
    tool: requested.tool,
    args: requested.args ?? (ran?.type === 'tool_call' ? ran.args : undefined),
    reason: '',
    approvers: { roles: [], identities: [], includesDefaultRole: false },
    createdAt: requested.at,
    expiresAt: requested.expiresAt ?? requested.at,
    status: 'pending',
    ...place,
  };
  if (decided?.type === 'approval_decided') {
    // Under the two-person rule a late click hears of everyone who approved: "already approved by Bob and Dave".
    const counted =
      decided.decision === 'approved'
        ? run.events.flatMap((event) =>
            event.type === 'approval_counted' && event.approvalId === approvalId && event.by !== decided.by
              ? [event.byName]
              : [],
          )
        : [];
    const name = namesOf([...counted, decided.byName ?? decided.by]);
    return {
      ...base,
      status: DECIDED[decided.decision] ?? 'denied',
      decidedAt: decided.at,
      ...(decided.decision === 'expired' ? {} : { decidedBy: { key: decided.by, displayName: name } }),
      ...(decided.reason ? { decisionReason: decided.reason } : {}),
    };
  }
  if (cancelled?.type === 'cancelled') {
    // Cancelled while it waited: withdrawn, by whoever cancelled the run.
    return {
      ...base,
      status: 'withdrawn',
      decidedAt: cancelled.at,
      decidedBy: { key: cancelled.by, displayName: cancelled.by },
    };
  }
  return base;
}
