// Approval grants as kernel commands: made with the approval that lets a call run, listed, and ended early.
// The run machine knows nothing of them; a grant is written after the approval's transition is applied.

import { durationSetting } from '../duration-text.js';
import type { GrantResult } from '../kernel-results.js';
import { type Grant, newGrantId } from '../policy/approval-grants.js';
import { auditActor } from '../policy/audit-log.js';
import { describePattern } from '../policy/grant-patterns.js';
import { grantRefusal, revokeRefusal } from '../policy/grant-rules.js';
import { grantChannelText } from '../policy/grant-text.js';
import { twoPersonRoles } from '../policy/role-two-person.js';
import { type Principal, personKey } from '../principal.js';
import type { PendingApproval, Run, RunIn } from '../run.js';
import { formatClock, possessive } from '../run-state-words.js';
import { stableJson } from '../stable-json.js';
import type { CommandCore } from './command-core.js';

/** What an approver asked for besides approving once: a grant this long, with exact arguments or a pattern. */
export interface GrantAsk {
  forMs: number;
  pattern?: string;
}

/**
 * Why the approval the run waits for may not be made into the grant asked for, or undefined when it may: by the
 * tool's settings, by the approvals the call needs (which a role's two_person may have raised), and by the
 * patterns its card offered.
 */
export function grantProblem(
  core: CommandCore,
  run: RunIn<'waiting_for_approval'>,
  ask: GrantAsk,
): string | undefined {
  const approvals = core.approvals;
  if (!approvals) return 'Approvals are not set up in this opsbot.';
  const settings = approvals.permissions;
  const pending = run.approval;
  const toolName = pending.call.name;
  const { channelName } = run.conversation;
  const place = { conversation: run.conversation, ...(channelName ? { channelName } : {}) };
  const refusal = grantRefusal(settings, toolName, core.registry.get(toolName), ask.forMs, {
    approvals: pending.approvals,
    twoPersonRoles: twoPersonRoles(settings, run.principal, toolName, place),
  });
  if (refusal) return refusal;
  if (ask.pattern === undefined) return undefined;
  const offered = pending.grantOffer?.patterns ?? [];
  if (offered.some((pattern) => pattern.name === ask.pattern)) return undefined;
  const names = offered.map((pattern) => pattern.name).join(', ');
  return `${toolName} offers no pattern "${ask.pattern}" for this call (${names ? `it offers ${names}` : 'it offers none'}); nothing was approved.`;
}

/** The grant an approver is making with their approval: written once the approval itself is applied. */
export function grantFor(
  core: CommandCore,
  run: Run,
  pending: PendingApproval,
  principal: Principal,
  ask: GrantAsk,
): Grant {
  const now = core.clock.now();
  const by = auditActor(principal);
  const { platform, channelId, channelName } = run.conversation;
  const pattern = pending.grantOffer?.patterns.find((offered) => offered.name === ask.pattern);
  return {
    id: newGrantId(),
    tool: pending.call.name,
    requester: { key: personKey(run.principal), displayName: run.principal.displayName },
    channel: { platform, channelId, ...(channelName ? { channelName } : {}) },
    args: stableJson(pending.call.args ?? {}),
    ...(pattern ? { pattern } : {}),
    ...(pending.displayArgs !== undefined ? { displayArgs: pending.displayArgs } : {}),
    grantedBy: { key: by.key, displayName: by.displayName },
    grantedAt: now,
    until: now + ask.forMs,
    approvalId: pending.approvalId,
  };
}

/** "for 1h, until 13:05 UTC, with these arguments": what a grant covers, for the approval card's outcome. */
export function grantedLine(grant: Grant): string {
  const scope = grant.pattern ? `these arguments, but ${describePattern(grant.pattern)}` : 'these arguments';
  return `for ${durationSetting(grant.until - grant.grantedAt)}, until ${formatClock(grant.until)} (${grant.id}): later calls of ${grant.tool} by ${grant.requester.displayName} here with ${scope} run without a new card`;
}

/** Writes the grant an approver made with their approval, audits it, and says what it covers. */
export async function createGrant(
  core: CommandCore,
  run: Run,
  grant: Grant,
  principal: Principal,
): Promise<{ grant: Grant; message: string }> {
  await core.grants.create(grant);
  const { channelName } = run.conversation;
  await core.approvals?.audit.record({
    kind: 'grant_created',
    actor: auditActor(principal),
    runId: run.id,
    approvalId: grant.approvalId,
    tool: grant.tool,
    args: grant.displayArgs,
    conversation: run.conversation,
    ...(channelName ? { channelName } : {}),
    outcome: `until ${formatClock(grant.until)}`,
    reason: `grant ${grant.id} for ${grant.requester.displayName}${grant.pattern ? `, pattern ${grant.pattern.name}: ${describePattern(grant.pattern)}` : ''}`,
  });
  const scope = grant.pattern ? `these arguments, but ${describePattern(grant.pattern)},` : 'these arguments';
  const message =
    `Granted until ${formatClock(grant.until)} (${grant.id}): ${possessive(grant.requester.displayName)} ` +
    `${grant.tool} with ${scope} in ${grantChannelText(grant.channel)} runs without a new approval.`;
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
