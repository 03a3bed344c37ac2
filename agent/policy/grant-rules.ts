// Who may make and end an approval grant, and for how long: pure answers from the settings and the tool.
import { durationSetting } from '../duration-text.js';
import type { Principal } from '../principal.js';
import { type Tool, takesGrants } from '../tool.js';
import type { Grant } from './approval-grants.js';
import { canApprove } from './approver-set.js';
import type { PermissionSettings } from './permission-settings.js';
import { resolveRoles } from './resolve-roles.js';
import { twoPersonSource } from './role-two-person.js';

/** What the approval being decided needs: how many approvers, and the requester's roles that made it two. */
export interface RequestedApprovals {
  /** As the pending approval records it, so a call asked for under a role's rule stays one. */
  approvals: number;
  twoPersonRoles: readonly string[];
}

/** Why a grant of `forMs` for this tool may not be made, or undefined when it may. */
export function grantRefusal(
  settings: PermissionSettings,
  toolName: string,
  tool: Pick<Tool, 'grants' | 'approvals'> | undefined,
  forMs: number,
  need: RequestedApprovals,
): string | undefined {
  const allowed = settings.grant_durations;
  if (!allowed.includes(forMs)) {
    const listed = allowed.map(durationSetting).join(', ');
    return `A grant may last ${listed} (permissions.grant_durations), not ${durationSetting(forMs)}; nothing was approved.`;
  }
  // Two approvers the tool does not ask for come from a role's two_person, and a grant would let later calls
  // skip both of them: never granted, whatever the tool's `grants` says.
  if (need.twoPersonRoles.length > 0 || (need.approvals === 2 && tool?.approvals !== 2)) {
    const source =
      need.twoPersonRoles.length > 0 ? twoPersonSource(need.twoPersonRoles) : "a role's two_person";
    return `${toolName} cannot be approved for a while: it needs two approvers (${source}), so each call is approved on its own. Nothing was approved.`;
  }
  if (!tool || takesGrants(tool)) return undefined;
  const why =
    tool.approvals === 2 && tool.grants === undefined
      ? 'it needs two approvers, so each call is approved on its own'
      : 'its settings say grants: false';
  return `${toolName} cannot be approved for a while: ${why}. Nothing was approved.`;
}

/** Why this person may not end the grant, or undefined when they may: admins and the tool's approvers may. */
export function revokeRefusal(
  settings: PermissionSettings,
  principal: Principal,
  grant: Grant,
): string | undefined {
  const roles = resolveRoles(settings, principal);
  if (roles.some((role) => settings.roles[role]?.admin)) return undefined;
  const place = {
    conversation: { platform: grant.channel.platform, channelId: grant.channel.channelId },
    ...(grant.channel.channelName ? { channelName: grant.channel.channelName } : {}),
  };
  if (canApprove(settings, principal, grant.tool, place)) return undefined;
  return `Only an admin or someone who may approve ${grant.tool} may end this grant.`;
}
