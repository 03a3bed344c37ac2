// The `patrols:` section of opsbot.yaml: named patrols, each a schedule, a channel and a list of checks.
// The keys are a contract (see README "Patrols"); new keys may be added, none renamed.
import { validate as validCron } from 'node-cron';
import { z } from 'zod';
import { DurationSchema } from '../agent/policy/duration.js';

export const SeveritySchema = z.enum(['warn', 'critical']);
export type Severity = z.infer<typeof SeveritySchema>;

const ClockTimeSchema = z.string().regex(/^([01]\d|2[0-3]):[0-5]\d$/, 'a time of day such as 22:00');

function validTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

const TimeZoneSchema = z.string().refine(validTimeZone, 'an IANA time zone such as UTC or Europe/Berlin');

/** Where a patrol posts: `slack:<channel id>`, `discord:<channel id>` or `playground:<channel name>`. */
export const PatrolChannelSchema = z
  .string()
  .regex(
    /^(slack:[A-Z0-9]+|discord:\d{17,20}|playground:[a-z0-9][a-z0-9_-]{0,79})$/,
    'slack:<channel id>, discord:<channel id> or playground:<channel name>',
  )
  .transform((text) => {
    const at = text.indexOf(':');
    return {
      platform: text.slice(0, at) as 'slack' | 'discord' | 'playground',
      channelId: text.slice(at + 1),
    };
  });
export type PatrolChannel = z.output<typeof PatrolChannelSchema>;

export const PatrolCheckSchema = z.strictObject({
  /** Stable id of the check within its patrol: its state is stored under it. */
  id: z.string().regex(/^[a-z0-9][a-z0-9_-]{0,63}$/, 'lower-case letters, digits, - and _'),
  tool: z.string().min(1),
  /** The tool's arguments, validated against the tool's own schema when settings load. */
  args: z.record(z.string(), z.unknown()).default({}),
  /** How bad a failing check is; a tool that throws or times out is `error` whatever this says. */
  severity: SeveritySchema.default('critical'),
});
export type PatrolCheck = z.output<typeof PatrolCheckSchema>;

export const QuietHoursSchema = z.strictObject({
  from: ClockTimeSchema,
  to: ClockTimeSchema,
  timezone: TimeZoneSchema.default('UTC'),
  /** Reports below this severity wait until the quiet hours end; this severity and above go out at once. */
  min_severity: SeveritySchema.default('critical'),
});
export type QuietHours = z.output<typeof QuietHoursSchema>;

export const PatrolSchema = z.strictObject({
  /** A node-cron expression; a leading seconds field is allowed. */
  schedule: z.string().refine(validCron, 'a cron expression such as */5 * * * *'),
  timezone: TimeZoneSchema.default('UTC'),
  channel: PatrolChannelSchema,
  checks: z.array(PatrolCheckSchema).min(1, 'a patrol needs at least one check'),
  /** Consecutive failing runs before a check is reported. */
  raise_after: z.number().int().min(1).max(100).default(1),
  /** Consecutive passing runs before a reported check is reported resolved. */
  clear_after: z.number().int().min(1).max(100).default(1),
  /** Repeat a still-failing report in its thread at most this often; off when absent. */
  remind_every: DurationSchema.optional(),
  quiet_hours: QuietHoursSchema.optional(),
  /** With a model: one extra model call writes a short summary of what changed. It never decides whether to post. */
  task: z.string().min(1).max(2000).optional(),
  /** A paused patrol skips its ticks; `/ops patrol resume` or this key turns it back on. */
  enabled: z.boolean().default(true),
});
export type Patrol = z.output<typeof PatrolSchema>;

export const PatrolsSchema = z
  .record(z.string().regex(/^[a-z0-9][a-z0-9_-]{0,63}$/, 'lower-case letters, digits, - and _'), PatrolSchema)
  .default({})
  .superRefine((patrols, ctx) => {
    for (const [name, patrol] of Object.entries(patrols)) {
      const seen = new Set<string>();
      patrol.checks.forEach((check, index) => {
        if (seen.has(check.id))
          ctx.addIssue({
            code: 'custom',
            path: [name, 'checks', index, 'id'],
            message: `check id "${check.id}" is used twice in patrol ${name}`,
          });
        seen.add(check.id);
      });
    }
  });
export type Patrols = z.output<typeof PatrolsSchema>;
