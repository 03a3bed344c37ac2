// Who may trust MCP tool definitions: admins (a role with `admin: true`), and how to say who they are when
// someone else asks.
import type { PermissionSettings } from '../../../agent/policy/permission-settings.js';
import { resolveRoles } from '../../../agent/policy/resolve-roles.js';
import type { Principal } from '../../../agent/principal.js';

function adminRoles(settings: PermissionSettings): string[] {
  return Object.entries(settings.roles)
    .filter(([, role]) => role.admin)
    .map(([name]) => name);
}

export function isAdmin(settings: PermissionSettings, principal: Principal): boolean {
  const admins = adminRoles(settings);
  return resolveRoles(settings, principal).some((role) => admins.includes(role));
}

/** "Only an admin may …: Val has the viewer role; admins are Olive (local:operator)." */
export function notAdminRefusal(settings: PermissionSettings, principal: Principal, what: string): string {
  const roles = resolveRoles(settings, principal);
  const admins = adminRoles(settings);
  const has = `${principal.displayName} has the ${roles.join(', ')} ${roles.length === 1 ? 'role' : 'roles'}`;
  if (admins.length === 0) {
    return `Only an admin may ${what}: ${has}, and no role has \`admin: true\` in permissions.roles.`;
  }
  const people = Object.entries(settings.identities)
    // Patrols and alerts act alone; they are never who a person should ask.
    .filter(
      ([key, identity]) =>
        !/^(patrol|alert):/.test(key) && identity.roles.some((role) => admins.includes(role)),
    )
    .map(([key, identity]) => (identity.display_name ? `${identity.display_name} (${key})` : key));
  const who =
    people.length > 0 ? `admins are ${people.join(', ')}` : `no identity has the ${admins.join(' or ')} role`;
  return `Only an admin may ${what}: ${has}; ${who}.`;
}
