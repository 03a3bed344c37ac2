// Who a Slack user is: display name from users.info, user groups from the Web API, roles from the settings.

import { z } from 'zod';
import type { Clock } from '../../agent/clock.js';
import { errorMessage } from '../../agent/errors.js';
import type { Logger } from '../../agent/logger.js';
import type { PermissionSettings } from '../../agent/policy/permission-settings.js';
import { identityDisplayName, withResolvedRoles } from '../../agent/policy/resolve-roles.js';
import type { Principal } from '../../agent/principal.js';
import { TtlCache } from '../chat/ttl-cache.js';
import type { WebClient } from './slack-web-client.js';

export interface SlackIdentityOptions {
  client: Pick<WebClient, 'apiCall'>;
  permissions: PermissionSettings;
  clock: Clock;
  logger: Logger;
  /** How long names and group memberships are trusted before they are read again. */
  ttlMs?: number;
}

const UserInfoSchema = z.object({
  user: z.object({
    name: z.string().optional(),
    real_name: z.string().optional(),
    profile: z.object({ display_name: z.string().optional(), real_name: z.string().optional() }).optional(),
  }),
});
const UserGroupsSchema = z.object({
  usergroups: z.array(z.object({ id: z.string(), users: z.array(z.string()).optional() })),
});
const GroupUsersSchema = z.object({ users: z.array(z.string()) });

export const DEFAULT_IDENTITY_TTL_MS = 5 * 60_000;
/** After a failed group read, wait this long before asking again rather than on every message. */
const FAILURE_TTL_MS = 30_000;

export class SlackIdentity {
  private readonly names: TtlCache<string>;
  private readonly memberships: TtlCache<Map<string, ReadonlySet<string>>>;
  /** Only groups the settings name matter for roles, so only those are read. */
  private readonly groupIds: string[];

  constructor(private readonly options: SlackIdentityOptions) {
    const ttl = options.ttlMs ?? DEFAULT_IDENTITY_TTL_MS;
    this.names = new TtlCache(options.clock, ttl);
    this.memberships = new TtlCache(options.clock, ttl, 1);
    this.groupIds = Object.keys(options.permissions.identities)
      .filter((key) => key.startsWith('slack_group:'))
      .map((key) => key.slice('slack_group:'.length));
  }

  async principal(userId: string): Promise<Principal> {
    // A name the settings give (`display_name`) is the one the team chose: Slack is not asked.
    const configured = identityDisplayName(this.options.permissions, { platform: 'slack', userId });
    const [displayName, groups] = await Promise.all([
      configured ?? this.displayName(userId),
      this.groupsOf(userId),
    ]);
    return withResolvedRoles(this.options.permissions, {
      platform: 'slack',
      userId,
      displayName,
      roles: [],
      groups,
    });
  }

  /**
   * A failed lookup shows the user id rather than failing the request, and is not tried again for 30 s, so that
   * a Slack outage or a missing `users:read` scope costs one call per person, not one per message.
   */
  private async displayName(userId: string): Promise<string> {
    try {
      return await this.names.get(userId, async () => {
        const info = UserInfoSchema.parse(await this.options.client.apiCall('users.info', { user: userId }));
        const { user } = info;
        return user.profile?.display_name || user.profile?.real_name || user.real_name || user.name || userId;
      });
    } catch (error) {
      this.options.logger.warn({ userId, err: errorMessage(error) }, 'could not read a Slack user name');
      this.names.set(userId, userId, FAILURE_TTL_MS);
      return userId;
    }
  }

  /** Membership read failures give no groups: fewer roles, never more. */
  private async groupsOf(userId: string): Promise<string[]> {
    if (this.groupIds.length === 0) return [];
    let memberships: Map<string, ReadonlySet<string>>;
    try {
      memberships = await this.memberships.get('groups', () => this.readMemberships());
    } catch {
      memberships = new Map();
      this.memberships.set('groups', memberships, FAILURE_TTL_MS);
    }
    return this.groupIds.filter((group) => memberships.get(group)?.has(userId));
  }

  /** One usergroups.list for every group; usergroups.users.list only for a named group listed without members. */
  private async readMemberships(): Promise<Map<string, ReadonlySet<string>>> {
    const { client, logger } = this.options;
    try {
      const listed = UserGroupsSchema.parse(await client.apiCall('usergroups.list', { include_users: true }));
      const members = new Map<string, ReadonlySet<string>>();
      for (const group of listed.usergroups) if (group.users) members.set(group.id, new Set(group.users));
      for (const group of this.groupIds) {
        if (!members.has(group)) members.set(group, await this.readGroup(group));
      }
      return members;
    } catch (error) {
      logger.warn(
        { err: errorMessage(error) },
        'could not read Slack user groups; group roles are not applied',
      );
      throw error;
    }
  }

  /** A group named in settings that Slack no longer knows has no members; the others still count. */
  private async readGroup(group: string): Promise<ReadonlySet<string>> {
    try {
      const users = GroupUsersSchema.parse(
        await this.options.client.apiCall('usergroups.users.list', { usergroup: group }),
      );
      return new Set(users.users);
    } catch (error) {
      this.options.logger.warn({ group, err: errorMessage(error) }, 'could not read a Slack user group');
      return new Set();
    }
  }
}
