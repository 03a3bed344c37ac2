// Approval grants as kernel commands: made with the approval that lets a call run, listed, and ended early.
// The run machine knows nothing of them; a grant is written after the approval's transition is applied.
import type { GrantResult } from '../kernel-results.js';
import { type Grant, newGrantId } from '../policy/approval-grants.js';
import { auditActor } from '../policy/audit-log.js';
import { grantRefusal, revokeRefusal } from '../policy/grant-rules.js';
import { grantChannelText } from '../policy/grant-text.js';
import { type Principal, personKey } from '../principal.js';
import type { PendingApproval, Run } from '../run.js';
import { formatClock, possessive } from '../run-state-words.js';
import { stableJson } from '../stable-json.js';
import type { CommandCore } from './command-core.js';

/** Why an approval for `forMs` may not be made into a grant, or undefined when it may. */
export function grantProblem(core: CommandCore, toolName: string, forMs: number): string | undefined {
  const approvals = core.approvals;
  if (!approvals) return 'Approvals are not set up in this opsbot.';
  return grantRefusal(approvals.permissions, toolName, core.registry.get(toolName), forMs);
}

/** Writes the grant an approver made with their approval, audits it, and says what it covers. */
export async function createGrant(
  core: CommandCore,
  run: Run,
  pending: PendingApproval,
  principal: Principal,
  forMs: number,
): Promise<{ grant: Grant; message: string }> {
  const now = core.clock.now();
  const by = auditActor(principal);
  const { platform, channelId, channelName } = run.conversation;
  const grant: Grant = {
    id: newGrantId(),
    tool: pending.call.name,
    requester: { key: personKey(run.principal), displayName: run.principal.displayName },
    channel: { platform, channelId, ...(channelName ? { channelName } : {}) },
    args: stableJson(pending.call.args ?? {}),
    ...(pending.displayArgs !== undefined ? { displayArgs: pending.displayArgs } : {}),
    grantedBy: { key: by.key, displayName: by.displayName },
    grantedAt: now,
    until: now + forMs,
    approvalId: pending.approvalId,
  };
  await core.grants.create(grant);
  await core.approvals?.audit.record({
    kind: 'grant_created',
    actor: by,
    runId: run.id,
    approvalId: pending.approvalId,
    tool: grant.tool,
    args: pending.displayArgs,
    conversation: run.conversation,
    ...(channelName ? { channelName } : {}),
    outcome: `until ${formatClock(grant.until)}`,
    reason: `grant ${grant.id} for ${grant.requester.displayName}`,
  });
  const message =
    `Granted until ${formatClock(grant.until)} (${grant.id}): ${possessive(grant.requester.displayName)} ` +
    `${grant.tool} with these arguments in ${grantChannelText(grant.channel)} runs without a new approval.`;
  return { grant, message };
}

/** Ends a grant early: admins and those who may approve its tool may. */
export async function revokeGrant(
  core: CommandCore,
  grantId: string,
  principal: Principal,
): Promise<GrantResult> {
  const approvals = core.approvals;
  if (!approvals) return { ok: false, message: 'Approvals are not set up in this opsbot.' };
  const grant = await core.grants.read(grantId);
  if (!grant)
    return { ok: false, message: `There is no live grant ${grantId}: it ended, or the id is wrong.` };
  const refusal = revokeRefusal(approvals.permissions, principal, grant);
  if (refusal) return { ok: false, message: refusal, grant };
  await core.grants.remove(grant);
  await approvals.audit.record({
    kind: 'grant_revoked',
    actor: auditActor(principal),
    approvalId: grant.approvalId,
    tool: grant.tool,
    args: grant.displayArgs,
    conversation: { platform: grant.channel.platform, channelId: grant.channel.channelId },
    ...(grant.channel.channelName ? { channelName: grant.channel.channelName } : {}),
    outcome: 'revoked',
    reason: `grant ${grant.id} by ${grant.grantedBy.displayName}, until ${formatClock(grant.until)}`,
  });
  return { ok: true, message: `Ended ${possessive(grant.grantedBy.displayName)} grant ${grant.id}.`, grant };
}
