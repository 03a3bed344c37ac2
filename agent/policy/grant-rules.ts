// Who may make and end an approval grant, and for how long: pure answers from the settings and the tool.
import { durationSetting } from '../duration-text.js';
import type { Principal } from '../principal.js';
import { type Tool, takesGrants } from '../tool.js';
import type { Grant } from './approval-grants.js';
import { canApprove } from './approver-set.js';
import type { PermissionSettings } from './permission-settings.js';
import { resolveRoles } from './resolve-roles.js';

/** Why a grant of `forMs` for this tool may not be made, or undefined when it may. */
export function grantRefusal(
  settings: PermissionSettings,
  toolName: string,
  tool: Pick<Tool, 'grants' | 'approvals'> | undefined,
  forMs: number,
): string | undefined {
  const allowed = settings.grant_durations;
  if (!allowed.includes(forMs)) {
    const listed = allowed.map(durationSetting).join(', ');
    return `A grant may last ${listed} (permissions.grant_durations), not ${durationSetting(forMs)}; nothing was approved.`;
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
