// The `patrols:` section of opsbot.yaml: named patrols, each a schedule, a channel and a list of checks.
// The keys are a contract (see docs/patrols.md); new keys may be added, none renamed.
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
  id: z
    .string()
    .regex(/^[a-z0-9][a-z0-9_-]{0,63}$/, 'lower-case letters, digits, - and _')
    .describe(
      "The check's stable id within its patrol (lower case, digits, `-`, `_`): its state is stored under it.",
    ),
  tool: z.string().min(1).describe('The read-only tool the check calls.'),
  args: z
    .record(z.string(), z.unknown())
    .default({})
    .describe("The tool's arguments, checked against the tool's own schema when the settings load."),
  severity: SeveritySchema.default('critical').describe(
    "How bad a failing check (the tool's `ok: false`, a call that timed out included) is; a tool that throws is `error` whatever this says.",
  ),
});
export type PatrolCheck = z.output<typeof PatrolCheckSchema>;

export const QuietHoursSchema = z.strictObject({
  from: ClockTimeSchema.describe('When the quiet hours start, such as `22:00`.'),
  to: ClockTimeSchema.describe('When they end, such as `07:00`; the hours may span midnight.'),
  timezone: TimeZoneSchema.default('UTC').describe('The IANA time zone of `from` and `to`.'),
  min_severity: SeveritySchema.default('critical').describe(
    'Reports below this severity wait until the quiet hours end; this severity and above go out at once.',
  ),
});
export type QuietHours = z.output<typeof QuietHoursSchema>;

export const PatrolSchema = z.strictObject({
  schedule: z
    .string()
    .refine(validCron, 'a cron expression such as */5 * * * *')
    .describe('A node-cron expression, such as `*/5 * * * *`; a leading seconds field is allowed.'),
  timezone: TimeZoneSchema.default('UTC').describe('The IANA time zone the schedule is read in.'),
  channel: PatrolChannelSchema.describe(
    'Where reports go: `slack:<channel id>`, `discord:<channel id>` or `playground:<channel name>`.',
  ),
  checks: z
    .array(PatrolCheckSchema)
    .min(1, 'a patrol needs at least one check')
    .describe('The checks, each a read-only tool call.'),
  raise_after: z
    .number()
    .int()
    .min(1)
    .max(100)
    .default(1)
    .describe('Failing runs in a row before a check is reported.'),
  clear_after: z
    .number()
    .int()
    .min(1)
    .max(100)
    .default(1)
    .describe('Passing runs in a row before a reported check is reported resolved.'),
  remind_every: DurationSchema.optional().describe(
    'Repeat a still-failing report in its thread at most this often, unless acked; off when absent.',
  ),
  quiet_hours: QuietHoursSchema.optional().describe('Hours in which reports below a severity are held back.'),
  task: z
    .string()
    .min(1)
    .max(2000)
    .optional()
    .describe(
      'With a model: one extra model call (offered no tools) writes a short summary under the report. It never ' +
        'decides whether anything is posted.',
    ),
  enabled: z
    .boolean()
    .default(true)
    .describe(
      '`false` pauses the patrol: it skips its ticks until `/ops patrol resume` or this key turns it on.',
    ),
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
