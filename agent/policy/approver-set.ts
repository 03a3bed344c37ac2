// Who may approve a call: the roles whose `approve` patterns match the tool, and the identities holding them.
import { z } from 'zod';
import { type Principal, personKey } from '../principal.js';
import { type Place, roleAppliesIn } from './channel-scope.js';
import type { PermissionSettings } from './permission-settings.js';
import { identityKeys, resolveRoles } from './resolve-roles.js';
import { matchesAnyToolPattern } from './tool-globs.js';

export const ApproverSetSchema = z.object({
  /** Roles whose members may approve. */
  roles: z.array(z.string()),
  /** Identity keys (slack:U1, discord_role:42, …) that hold one of those roles. */
  identities: z.array(z.string()),
  /** True when one of the roles is the default role, so anyone without a listed identity may approve. */
  includesDefaultRole: z.boolean(),
  /** The identities as people know them ("Bob"), in the same order; absent in records made before names. */
  names: z.array(z.string()).optional(),
});
export type ApproverSet = z.infer<typeof ApproverSetSchema>;

/** Roles that may approve `toolName` in this place (everywhere when no place is given). */
export function approverRoles(settings: PermissionSettings, toolName: string, place?: Place): string[] {
  return Object.entries(settings.roles)
    .filter(([, role]) => matchesAnyToolPattern(role.approve, toolName))
    .filter(([, role]) => place === undefined || roleAppliesIn(role, place))
    .map(([name]) => name);
}

export function approverSet(settings: PermissionSettings, toolName: string, place?: Place): ApproverSet {
  const roles = approverRoles(settings, toolName, place);
  const identities = Object.entries(settings.identities)
    // A patrol cannot click a button, so it never counts as someone who could approve.
    .filter(([key, identity]) => !key.startsWith('patrol:') && identity.roles.some((r) => roles.includes(r)))
    .map(([key]) => key);
  const names = identities.map((key) => settings.identities[key]!.display_name ?? nameFromKey(key));
  return { roles, identities, includesDefaultRole: roles.includes(settings.default_role), names };
}

/** A name for an identity the settings give none: "Bob" for local:bob, "members of SADMINS" for a group. */
function nameFromKey(key: string): string {
  const [kind = '', ...rest] = key.split(':');
  const id = rest.join(':');
  if (kind === 'local') return id.charAt(0).toUpperCase() + id.slice(1);
  if (isGroupKey(key)) return `members of ${id}`;
  return key;
}

/** A Slack user group or a Discord role: many people under one key; sharing it never makes one the requester. */
function isGroupKey(key: string): boolean {
  return key.startsWith('slack_group:') || key.startsWith('discord_role:');
}

/**
 * Whether anyone besides the requester (or the requester too, with allow_self_approval) could ever approve.
 * A set with roles but no members is as empty as a set with no roles: nobody may approve, so nobody does.
 */
export function someoneCanApprove(
  settings: PermissionSettings,
  approvers: ApproverSet,
  requester: Pick<Principal, 'platform' | 'userId'>,
): boolean {
  if (approvers.includesDefaultRole) return true;
  const requesterKey = personKey(requester);
  return approvers.identities.some((key) => settings.allow_self_approval || key !== requesterKey);
}

/**
 * Whether two people besides the requester could approve, as the two-person rule needs, and the names of those
 * there are. A group key or the default role counts as enough: it holds many people, whom opsbot cannot count.
 * Without a requester (the start-up check) everyone listed counts.
 */
export function twoCouldApprove(
  approvers: ApproverSet,
  requester?: Pick<Principal, 'platform' | 'userId'>,
): { enough: boolean; others: string[] } {
  if (approvers.includesDefaultRole) return { enough: true, others: [] };
  const requesterKey = requester === undefined ? undefined : personKey(requester);
  const others = namedIdentities(approvers).filter(({ key }) => key !== requesterKey);
  const enough = others.length >= 2 || others.some(({ key }) => isGroupKey(key));
  return { enough, others: others.map(({ name }) => name) };
}

/** Each approver identity with the name people know it by; records made before names get one from the key. */
function namedIdentities(approvers: ApproverSet): Array<{ key: string; name: string }> {
  const named = approvers.names?.length === approvers.identities.length ? approvers.names : undefined;
  return approvers.identities.map((key, index) => ({ key, name: named?.[index] ?? nameFromKey(key) }));
}

/** The principal's roles that may approve this tool here, resolved from settings now. */
export function approvingRolesOf(
  settings: PermissionSettings,
  principal: Pick<Principal, 'platform' | 'userId' | 'groups'>,
  toolName: string,
  place?: Place,
): string[] {
  const allowed = approverRoles(settings, toolName, place);
  return resolveRoles(settings, principal).filter((role) => allowed.includes(role));
}

export function canApprove(
  settings: PermissionSettings,
  principal: Pick<Principal, 'platform' | 'userId' | 'groups'>,
  toolName: string,
  place?: Place,
): boolean {
  return approvingRolesOf(settings, principal, toolName, place).length > 0;
}

/** "the operator or admin role", for cards and reasons. */
export function describeRoles(roles: readonly string[]): string {
  if (roles.length === 0) return 'no role';
  if (roles.length === 1) return `the ${roles[0]} role`;
  return `the ${roles.slice(0, -1).join(', ')} or ${roles.at(-1)} role`;
}

/**
 * "someone with the admin role (@sre-oncall, Dave)": who else may decide, groups by their settings name and people
 * by theirs, never by a settings key. The requester is never listed (with allow_self_approval they may approve
 * too, and know it); a group they belong to is named "other than" them.
 */
export function describeApprovers(
  approvers: ApproverSet,
  requester: Pick<Principal, 'platform' | 'userId' | 'displayName'> & { groups?: readonly string[] },
): string {
  const roles = describeRoles(approvers.roles);
  if (approvers.includesDefaultRole)
    return `someone with ${roles} (anyone other than ${requester.displayName})`;
  const requesterKey = personKey(requester);
  const requesterGroups = identityKeys(requester);
  const others = namedIdentities(approvers)
    .filter(({ key }) => key !== requesterKey)
    .map(({ key, name }) =>
      isGroupKey(key) && requesterGroups.includes(key) ? `${name} other than ${requester.displayName}` : name,
    );
  if (others.length === 0) return 'nobody else may approve this';
  return `someone with ${roles} (${others.join(', ')})`;
}
