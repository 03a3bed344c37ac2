// Who a Discord user is: the name people see, and roles from the settings by user id and by the member's server
// roles, read from the event itself (no REST call per message) and recomputed at every decision.
import type { PermissionSettings } from '../../agent/policy/permission-settings.js';
import { withResolvedRoles } from '../../agent/policy/resolve-roles.js';
import type { Principal } from '../../agent/principal.js';

/** What a message or an interaction tells about its author. */
export interface DiscordAuthor {
  id: string;
  username: string;
  /** The account's display name, when set. */
  globalName?: string | null;
}

/** What a guild event adds: the member's nickname there, and the ids of their server roles. */
export interface DiscordMember {
  nick?: string | null;
  roleIds: readonly string[];
}

export function discordPrincipal(
  permissions: PermissionSettings,
  author: DiscordAuthor,
  member?: DiscordMember,
): Principal {
  const displayName = member?.nick || author.globalName || author.username;
  return withResolvedRoles(permissions, {
    platform: 'discord',
    userId: author.id,
    displayName,
    roles: [],
    // discord_role:<id> identities match these.
    groups: [...(member?.roleIds ?? [])],
  });
}
