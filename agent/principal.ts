// Who is asking: a platform identity with the roles the settings give it.
import { z } from 'zod';

export const PlatformSchema = z.enum(['slack', 'discord', 'playground', 'cli', 'patrol']);
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

export function principalKey(principal: Pick<Principal, 'platform' | 'userId'>): string {
  return `${principal.platform}:${principal.userId}`;
}

export function samePrincipal(
  a: Pick<Principal, 'platform' | 'userId'>,
  b: Pick<Principal, 'platform' | 'userId'>,
) {
  return a.platform === b.platform && a.userId === b.userId;
}
