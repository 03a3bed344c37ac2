// An approval as stored: one pending decision bound by hash to one exact call, with its id and messages.
import { createHash, randomBytes } from 'node:crypto';
import { z } from 'zod';
import { ConversationSchema } from '../conversation.js';
import { type Principal, PrincipalSchema, principalKey } from '../principal.js';
import { stableJson } from '../stable-json.js';
import { ApproverSetSchema } from './approver-set.js';
import { AuditActorSchema } from './audit-log.js';

export const APPROVAL_SCHEMA_VERSION = 1;

/** 4 + 22 characters: fits a Discord custom_id (100) with room for a prefix such as "approval:approve:". */
export const APPROVAL_ID_PATTERN = /^apv_[A-Za-z0-9_-]{22}$/;

export function newApprovalId(): string {
  return `apv_${randomBytes(16).toString('base64url')}`;
}

export const ApprovalDecisionSchema = z.enum(['approve', 'deny']);
export type ApprovalDecision = z.infer<typeof ApprovalDecisionSchema>;

/** withdrawn: the run was cancelled while the approval waited; decidedBy is who cancelled it. */
export const ApprovalStatusSchema = z.enum(['pending', 'approved', 'denied', 'expired', 'withdrawn']);
export type ApprovalStatus = z.infer<typeof ApprovalStatusSchema>;

export const ApprovalSchema = z.object({
  schemaVersion: z.literal(APPROVAL_SCHEMA_VERSION),
  id: z.string().regex(APPROVAL_ID_PATTERN),
  /** sha256 of run, step, tool, canonical arguments and requester: what the approver actually approved. */
  bindingHash: z.string().regex(/^[0-9a-f]{64}$/),
  runId: z.string(),
  step: z.number().int().nonnegative(),
  callId: z.string(),
  tool: z.string(),
  /** As shown on the card: the caller redacts before requesting. */
  args: z.unknown(),
  requester: PrincipalSchema,
  /** The model's stated reason for the call. */
  reason: z.string(),
  approvers: ApproverSetSchema,
  conversation: ConversationSchema,
  channelName: z.string().optional(),
  createdAt: z.number(),
  expiresAt: z.number(),
  status: ApprovalStatusSchema,
  decidedBy: AuditActorSchema.optional(),
  decidedAt: z.number().optional(),
  decisionReason: z.string().optional(),
});
export type Approval = z.infer<typeof ApprovalSchema>;

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
export function verifyBinding(approval: Pick<Approval, 'bindingHash'>, call: BoundCall): boolean {
  return bindingHash(call) === approval.bindingHash;
}

export function formatTime(at: number): string {
  return `${new Date(at).toISOString().replace('T', ' ').slice(0, 19)} UTC`;
}
