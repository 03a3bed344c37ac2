// The people of the "you are" switcher: the settings' `local:*` identities, as principals the policy knows.
import { identityDisplayName, withResolvedRoles } from '../../agent/policy/resolve-roles.js';
import type { Principal } from '../../agent/principal.js';
import type { PermissionSettings } from '../config/settings-schema.js';

export interface PlaygroundUser {
  id: string;
  displayName: string;
  roles: string[];
}

/** Without any local identity in the settings, one person with the default role, so the page still works. */
export const FALLBACK_USER_ID = 'you';

export function playgroundUsers(permissions: PermissionSettings): PlaygroundUser[] {
  const ids = Object.keys(permissions.identities)
    .filter((key) => key.startsWith('local:') && key.length > 'local:'.length)
    .map((key) => key.slice('local:'.length));
  const users = (ids.length > 0 ? ids : [FALLBACK_USER_ID]).map((id) => {
    const principal = playgroundPrincipal(permissions, id);
    return { id, displayName: principal.displayName, roles: principal.roles };
  });
  return users;
}

export function playgroundPrincipal(permissions: PermissionSettings, userId: string): Principal {
  const identity = { platform: 'playground' as const, userId };
  const displayName =
    identityDisplayName(permissions, identity) ??
    (userId === FALLBACK_USER_ID ? 'You' : userId.charAt(0).toUpperCase() + userId.slice(1));
  return withResolvedRoles(permissions, { ...identity, displayName, roles: [], groups: [] });
}
