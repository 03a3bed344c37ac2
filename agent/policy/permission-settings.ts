// The `permissions` section of opsbot.yaml: roles, identities, channel narrowing and approval rules.
import { z } from 'zod';
import { RiskSchema } from '../tool.js';
import { DurationSchema } from './duration.js';

export const IDENTITY_KINDS = ['slack', 'slack_group', 'discord', 'discord_role', 'local', 'patrol'] as const;
const IDENTITY_KEY_PATTERN = new RegExp(`^(${IDENTITY_KINDS.join('|')}):.+$`);

export const PATROL_ACTIONS = ['run', 'ack', 'snooze', 'pause'] as const;
export type PatrolAction = (typeof PATROL_ACTIONS)[number];

export const IdentitySettingsSchema = z.object({
  /** Roles for this identity. */
  roles: z.array(z.string()).min(1),
  /** Shown in the playground's "you are" switcher, for local users. */
  display_name: z.string().optional(),
});

export const RoleSettingsSchema = z.object({
  description: z.string().optional(),
  /** Tool names or globs (restart_*) members may use. */
  tools: z.array(z.string()).default([]),
  /** Risks members may use at all; the shipped default role is read-only. */
  risks: z.array(RiskSchema).default(['read', 'write', 'danger']),
  /** Tool names or globs members may approve for others. */
  approve: z.array(z.string()).default([]),
  /** Channels (ids or #names) where the role applies; all channels when absent. */
  channels: z.array(z.string().min(1)).optional(),
  /** Let members run write tools without approval. */
  write_without_approval: z.boolean().default(false),
  /** Danger tools (names or globs) members may run without approval. Explicit on purpose. */
  danger_without_approval: z.array(z.string()).default([]),
  /** Members may cancel anyone's run and see all runs. */
  admin: z.boolean().default(false),
  /**
   * What members may do to patrols from chat and the CLI: run one now, ack a report (stops its reminders), snooze
   * it, pause and resume it. Admins may do all four. Anyone may list and read patrols.
   */
  patrols: z.array(z.enum(PATROL_ACTIONS)).default([]),
});
export type RoleSettings = z.output<typeof RoleSettingsSchema>;

export const ChannelSettingsSchema = z.object({
  /** Tool names or globs allowed in this channel; everything the role allows when absent. */
  tools: z.array(z.string()).optional(),
  /** Risks allowed in this channel. */
  risks: z.array(RiskSchema).default(['read', 'write', 'danger']),
});
export type ChannelSettings = z.output<typeof ChannelSettingsSchema>;

const readOnlyRole = (description: string, patrols: PatrolAction[] = []): RoleSettings => ({
  description,
  tools: ['*'],
  risks: ['read'],
  approve: [],
  write_without_approval: false,
  danger_without_approval: [],
  admin: false,
  patrols,
});

/**
 * Roles that exist even when opsbot.yaml defines its own, so the default role and patrols always resolve to
 * something read-only. A role of the same name in the settings replaces the built-in one.
 */
export const BUILTIN_ROLES: Readonly<Record<string, RoleSettings>> = Object.freeze({
  viewer: readOnlyRole('Read-only checks', ['run']),
  patrol: readOnlyRole('Scheduled patrols: read-only checks'),
});

export const PermissionSettingsSchema = z
  .object({
    default_role: z.string().default('viewer'),
    /** The role a patrol runs with when no `patrol:<name>` identity gives it others. */
    patrol_role: z.string().default('patrol'),
    roles: z.record(z.string(), RoleSettingsSchema).default({}),
    /** Identity keys: slack:U123, slack_group:S123, discord:1234, discord_role:5678, local:alice, patrol:name. */
    identities: z.record(z.string(), IdentitySettingsSchema).default({}),
    /** Per-channel narrowing, keyed by channel id or #name; `*` is the rule for channels without their own. */
    channels: z.record(z.string(), ChannelSettingsSchema).default({}),
    allow_self_approval: z.boolean().default(false),
    approval_ttl: DurationSchema.default(15 * 60_000),
    /** What a denial does to the run: let the model continue, or stop the run. */
    on_denial: z.enum(['continue', 'stop']).default('continue'),
    /** New tasks per person per minute. */
    tasks_per_minute: z.number().int().min(1).default(10),
  })
  .transform((permissions) => ({ ...permissions, roles: { ...BUILTIN_ROLES, ...permissions.roles } }))
  .superRefine((permissions, ctx) => {
    // A misspelt role or identity would silently grant nothing (or the default); say so at start-up instead.
    const defined = (role: string) => Object.hasOwn(permissions.roles, role);
    const known = Object.keys(permissions.roles).join(', ');
    for (const key of ['default_role', 'patrol_role'] as const) {
      if (!defined(permissions[key])) {
        ctx.addIssue({
          code: 'custom',
          path: [key],
          message: `role "${permissions[key]}" is not defined under permissions.roles (defined: ${known})`,
        });
      }
    }
    for (const [identity, settings] of Object.entries(permissions.identities)) {
      if (!IDENTITY_KEY_PATTERN.test(identity)) {
        ctx.addIssue({
          code: 'custom',
          path: ['identities', identity],
          message: `"${identity}" is not an identity key; use one of ${IDENTITY_KINDS.map((kind) => `${kind}:<id>`).join(', ')}`,
        });
      }
      for (const role of settings.roles) {
        if (!defined(role)) {
          ctx.addIssue({
            code: 'custom',
            path: ['identities', identity, 'roles'],
            message: `role "${role}" is not defined under permissions.roles (defined: ${known})`,
          });
        }
      }
    }
  })
  .prefault({});

export type PermissionSettings = z.output<typeof PermissionSettingsSchema>;
export type PermissionSettingsInput = z.input<typeof PermissionSettingsSchema>;
