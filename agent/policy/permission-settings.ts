// The `permissions` section of opsbot.yaml: roles, identities, channel narrowing and approval rules.
import { z } from 'zod';
import { RiskSchema } from '../tool.js';
import { DurationSchema } from './duration.js';
import { ReviewerSettingsSchema } from './reviewer-settings.js';

export const IDENTITY_KINDS = [
  'slack',
  'slack_group',
  'discord',
  'discord_role',
  'local',
  'patrol',
  'alert',
] as const;
const IDENTITY_KEY_PATTERN = new RegExp(`^(${IDENTITY_KINDS.join('|')}):.+$`);

export const PATROL_ACTIONS = ['run', 'ack', 'snooze', 'pause'] as const;
/** What a person may do to an alert group's thread from its buttons. */
export const ALERT_ACTIONS = ['ack', 'investigate'] as const;
export type PatrolAction = (typeof PATROL_ACTIONS)[number];

export const IdentitySettingsSchema = z.object({
  roles: z
    .array(z.string())
    .min(1)
    .describe('Roles of this identity; someone matching several identities has all their roles.'),
  display_name: z
    .string()
    .optional()
    .describe(
      'The name opsbot shows for this identity: a local user in the playground\'s "you are" switcher, and ' +
        'every identity on approval cards and in the audit log. Name a group as people know it (`@sre-oncall`); ' +
        'without one, a card says "members of SADMINS".',
    ),
});

export const RoleSettingsSchema = z.object({
  description: z.string().optional().describe('What the role is for, for the people reading the settings.'),
  tools: z.array(z.string()).default([]).describe('Tool names or globs (`*`, `restart_*`) members may use.'),
  risks: z
    .array(RiskSchema)
    .default(['read', 'write', 'danger'])
    .describe(
      'Risks members may use at all: `read`, `write`, `danger`. The built-in `viewer` role is `[read]`.',
    ),
  approve: z.array(z.string()).default([]).describe('Tool names or globs members may approve for others.'),
  two_person: z
    .array(z.string())
    .default([])
    .describe(
      'Tool names or globs (matched as in `approve`) whose calls by members need two different approvers, ' +
        'neither of them the requester, even when the tool itself needs one. It counts wherever the role ' +
        "applies (see `channels`), whichever of the member's roles lets them use the tool, and only for a call " +
        'that needs an approval at all: what a member may run without approval still runs without one. Such ' +
        "a call cannot be approved for a while (no grants), whatever the tool's `grants` says.",
    ),
  channels: z
    .array(z.string().min(1))
    .optional()
    .describe(
      'Channels (ids or #names) where the role applies; all channels when absent. Elsewhere its members have ' +
        'only their other roles.',
    ),
  write_without_approval: z
    .boolean()
    .default(false)
    .describe('Members run `write` tools without an approval.'),
  danger_without_approval: z
    .array(z.string())
    .default([])
    .describe('`danger` tools (names or globs) members may run without an approval: explicit, tool by tool.'),
  admin: z
    .boolean()
    .default(false)
    .describe("Members may cancel anyone's run, see all runs, and steer every patrol."),
  patrols: z
    .array(z.enum(PATROL_ACTIONS))
    .default([])
    .describe(
      'What members may do to patrols from chat and the CLI: `run` one now, `ack` a report (stops its reminders), ' +
        '`snooze` it, `pause` and resume it. Admins may do all four; anyone may list and read patrols.',
    ),
  alerts: z
    .array(z.enum(ALERT_ACTIONS))
    .default([])
    .describe(
      "What members may do with an alert group's buttons: `ack` it, `investigate` it (start an investigation, or " +
        'run it again). Admins may do both. Silence is not here: it is an `alertmanager_silence` call, which the ' +
        "role's tools, risks and approvals decide.",
    ),
});
export type RoleSettings = z.output<typeof RoleSettingsSchema>;
export type AlertAction = (typeof ALERT_ACTIONS)[number];

export const ChannelSettingsSchema = z.object({
  tools: z
    .array(z.string())
    .optional()
    .describe('Tool names or globs allowed in this channel; everything the role allows when absent.'),
  risks: z
    .array(RiskSchema)
    .default(['read', 'write', 'danger'])
    .describe(
      'Risks allowed in this channel. A channel rule narrows what a role may do there, never widens it.',
    ),
});
export type ChannelSettings = z.output<typeof ChannelSettingsSchema>;

const readOnlyRole = (description: string, patrols: PatrolAction[] = []): RoleSettings => ({
  description,
  tools: ['*'],
  risks: ['read'],
  approve: [],
  two_person: [],
  write_without_approval: false,
  danger_without_approval: [],
  admin: false,
  patrols,
  alerts: [],
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
    default_role: z
      .string()
      .default('viewer')
      .describe('The role of anyone not listed under `identities`. The built-in `viewer` is read-only.'),
    patrol_role: z
      .string()
      .default('patrol')
      .describe('The role a patrol runs with when no `patrol:<name>` identity gives it others.'),
    roles: z
      .record(z.string(), RoleSettingsSchema)
      .default({})
      .describe(
        'Roles by name. `viewer` and `patrol` exist even when not written here (both read-only); a role of the ' +
          'same name replaces the built-in one.',
      ),
    identities: z
      .record(z.string(), IdentitySettingsSchema)
      .default({})
      .describe(
        'Who has which roles, by identity key: `slack:U…`, `slack_group:S…`, `discord:<user id>`, ' +
          '`discord_role:<role id>`, `local:<name>` (the playground and the CLI), `patrol:<name>` or ' +
          '`alert:<receiver>` (an alert investigation; `alerts.role` when absent).',
      ),
    channels: z
      .record(z.string(), ChannelSettingsSchema)
      .default({})
      .describe(
        'Channel rules, keyed by channel id or #name; `*` is the rule for channels without one of their own. ' +
          "Quote such keys in YAML ('*', '#ops'): there `*` starts an alias and `#` a comment.",
      ),
    allow_self_approval: z
      .boolean()
      .default(false)
      .describe('Whether a requester may approve their own call, when their role may approve it.'),
    approval_ttl: DurationSchema.default(15 * 60_000).describe(
      'How long an approval request stays open before it expires; a command can set its own.',
    ),
    grant_durations: z
      .array(DurationSchema)
      .min(1)
      .default([15 * 60_000, 60 * 60_000, 4 * 60 * 60_000])
      .describe(
        'How long an approver may approve "for a while" (a grant): while it lasts, the same tool for the same ' +
          'requester in the same channel with the same arguments runs without a new approval. A tool with ' +
          "`grants: false` (the default for `approvals: 2`) refuses grants, as does a call a role's `two_person` " +
          'names.',
      ),
    confirm_unrequested_writes: z
      .boolean()
      .default(true)
      .describe(
        'A `write` or `danger` call that would run without an approver, but that the task (and the answers to ' +
          "its questions) names neither by the tool's name nor by one of its `aliases`, and that the model proposes after reading outside data " +
          "in the run (any tool's output: logs, command output, HTTP bodies), waits for the requester's own " +
          'Confirm: a card only they can click. It stops an instruction planted in that data from becoming an ' +
          'action nobody chose. A call that needs an approver is shown to one anyway, and is not asked twice.',
      ),
    on_denial: z
      .enum(['continue', 'stop'])
      .default('continue')
      .describe(
        'What a denied or expired approval does to the run: `continue` tells the model, which may try another ' +
          'way; `stop` ends the run.',
      ),
    reviewer: ReviewerSettingsSchema.describe(
      "A model reviews a risky call against the run's evidence before its approval card is posted: advice for the approver.",
    ),
    tasks_per_minute: z
      .number()
      .int()
      .min(1)
      .default(10)
      .describe(
        'New tasks per person per minute; the playground and the CLI count as one person. Patrol runs are not ' +
          'counted: their schedule is their limit.',
      ),
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
    for (const role of permissions.reviewer.skip_roles) {
      if (!defined(role)) {
        ctx.addIssue({
          code: 'custom',
          path: ['reviewer', 'skip_roles'],
          message: `role "${role}" is not defined under permissions.roles (defined: ${known})`,
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

export type PermissionSettings = z.output<typeof PermissionSettingsSchema> & {
  /**
   * The role of an alert investigation (`alert:<receiver>`) that no `alert:<receiver>` identity gives others. It is
   * not a key of `permissions:`: the bot sets it from its own `alerts.role`, and without it such a run has the
   * patrol role.
   */
  readonly alert_role?: string;
};
export type PermissionSettingsInput = z.input<typeof PermissionSettingsSchema>;
