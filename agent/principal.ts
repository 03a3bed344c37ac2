// Who is asking: a platform identity with the roles the settings give it.
import { z } from 'zod';

export const PlatformSchema = z.enum(['slack', 'discord', 'playground', 'cli', 'patrol', 'alert']);
export type Platform = z.infer<typeof PlatformSchema>;

export const PrincipalSchema = z.object({
  platform: PlatformSchema,
  userId: z.string().min(1),
  displayName: z.string(),
  roles: z.array(z.string()),
  /** Platform groups (Slack user groups, Discord roles) the identity belongs to, as resolved at the edge. */
  groups: z.array(z.string()).default([]),
});
export type Principal = z.infer<typeof PrincipalSchema>;

/** Where a principal spoke from (`playground:bob`, `cli:bob`): for records and bindings, never for "who". */
export function principalKey(principal: Pick<Principal, 'platform' | 'userId'>): string {
  return `${principal.platform}:${principal.userId}`;
}

/**
 * The human behind a principal, written as a settings identity key. The playground and the CLI are the same
 * local people (`local:<name>`); elsewhere it is the platform's user id. Groups (`slack_group:`,
 * `discord_role:`) are never part of it, so sharing a group never makes two people one. Every decision that
 * hangs on "is this the same person" (self-approval, answering, cancelling, rate limits) goes through here.
 */
export function personKey(principal: Pick<Principal, 'platform' | 'userId'>): string {
  switch (principal.platform) {
    case 'playground':
    case 'cli':
      return `local:${principal.userId}`;
    default:
      return `${principal.platform}:${principal.userId}`;
  }
}

export function samePerson(
  a: Pick<Principal, 'platform' | 'userId'>,
  b: Pick<Principal, 'platform' | 'userId'>,
) {
  return personKey(a) === personKey(b);
}
