// The two-person rule from a role's rules: which of the requester's roles name a tool under `two_person` here,
// and so how many approvers a call needs and why, in words for refusals.
import type { Principal } from '../principal.js';
import type { Tool } from '../tool.js';
import { type Place, roleAppliesIn } from './channel-scope.js';
import type { PermissionSettings } from './permission-settings.js';
import { resolveRoles } from './resolve-roles.js';
import { matchesAnyToolPattern } from './tool-globs.js';

/**
 * The requester's roles that apply here and list the tool under `two_person`. Any such role counts, not only the
 * one that lets them use the tool: a role can exist just to say "their risky calls need two approvers".
 */
export function twoPersonRoles(
  settings: PermissionSettings,
  principal: Pick<Principal, 'platform' | 'userId' | 'groups'>,
  toolName: string,
  place: Place,
): string[] {
  return resolveRoles(settings, principal).filter((name) => {
    if (!Object.hasOwn(settings.roles, name)) return false;
    const role = settings.roles[name]!;
    return roleAppliesIn(role, place) && matchesAnyToolPattern(role.two_person, toolName);
  });
}

/** The approvals a call needs when it needs any: two when the tool or one of those roles says so. */
export function approvalsNeeded(tool: Pick<Tool, 'approvals'>, roles: readonly string[]): 1 | 2 {
  return roles.length > 0 ? 2 : (tool.approvals ?? 1);
}

/** Why a call needs two approvers: "role sre's two_person", else "its settings say approvals: 2". */
export function twoPersonSource(roles: readonly string[]): string {
  if (roles.length === 0) return 'its settings say approvals: 2';
  if (roles.length === 1) return `role ${roles[0]}'s two_person`;
  return `the two_person of roles ${roles.slice(0, -1).join(', ')} and ${roles.at(-1)}`;
}
