// Which roles a principal has: the union of every settings identity that matches them, else a default.
import type { Principal } from '../principal.js';
import type { PermissionSettings } from './permission-settings.js';

type Identity = Pick<Principal, 'platform' | 'userId'> & { groups?: readonly string[] };

/** The identity keys, as written in settings, that name this principal or one of its platform groups. */
export function identityKeys(identity: Identity): string[] {
  const groups = identity.groups ?? [];
  switch (identity.platform) {
    case 'slack':
      return [`slack:${identity.userId}`, ...groups.map((group) => `slack_group:${group}`)];
    case 'discord':
      return [`discord:${identity.userId}`, ...groups.map((group) => `discord_role:${group}`)];
    case 'playground':
    case 'cli':
      return [`local:${identity.userId}`];
    case 'patrol':
      return [`patrol:${identity.userId}`];
    case 'alert':
      return [`alert:${identity.userId}`];
  }
}

/**
 * Roles come from settings every time, never from `principal.roles`, so a stored run or a hand-built principal
 * cannot carry roles the settings no longer give.
 */
export function resolveRoles(settings: PermissionSettings, identity: Identity): string[] {
  const roles = new Set<string>();
  for (const key of identityKeys(identity)) {
    if (!Object.hasOwn(settings.identities, key)) continue;
    for (const role of settings.identities[key]!.roles) roles.add(role);
  }
  if (roles.size > 0) return [...roles];
  if (identity.platform === 'alert') return [settings.alert_role ?? settings.patrol_role];
  return [identity.platform === 'patrol' ? settings.patrol_role : settings.default_role];
}

/** The principal with its roles filled in from settings, for the edges that build principals. */
export function withResolvedRoles(settings: PermissionSettings, principal: Principal): Principal {
  return { ...principal, roles: resolveRoles(settings, principal) };
}

/** The display name settings give a local identity, for the playground's "you are" switcher. */
export function identityDisplayName(settings: PermissionSettings, identity: Identity): string | undefined {
  const [own] = identityKeys(identity);
  if (own === undefined || !Object.hasOwn(settings.identities, own)) return undefined;
  return settings.identities[own]!.display_name;
}
