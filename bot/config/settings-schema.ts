// The shape of opsbot.yaml: every setting that is not a secret or an endpoint, validated once at start-up.
// Objects are strict: a misspelt key (`risk:` for `risks:`) would otherwise be dropped silently and its default
// would apply. The loader applies the same rule to the sections other modules own (see settings-strictness.ts).
import { z } from 'zod';
import { DurationSchema } from '../../agent/policy/duration.js';
import { PermissionSettingsSchema } from '../../agent/policy/permission-settings.js';
import { ToolSettingsSchema } from '../../tools/tool-settings-schema.js';

const duration = DurationSchema;

export const LimitsSettingsSchema = z
  .strictObject({
    max_steps: z.number().int().min(1).max(200).default(12),
    max_tool_calls: z.number().int().min(1).default(40),
    max_tokens: z.number().int().min(1000).default(200_000),
    max_wall_time: duration.default(10 * 60_000),
    tool_timeout: duration.default(30_000),
    model_timeout: duration.default(60_000),
    model_retries: z.number().int().min(0).max(10).default(2),
    question_ttl: duration.default(24 * 3_600_000),
    max_task_chars: z.number().int().min(100).default(20_000),
    tool_output_chars: z.number().int().min(1000).default(16_000),
  })
  .prefault({});

export const ModelSettingsSchema = z
  .strictObject({
    /** Tokens the model accepts in one request. */
    context_window: z.number().int().min(2048).default(128_000),
    /** Fraction of the context window at which older context is compressed. */
    compress_at: z.number().min(0.1).max(0.95).default(0.8),
    temperature: z.number().min(0).max(2).optional(),
  })
  .prefault({});

export const RedactionSettingsSchema = z
  .strictObject({
    /** Extra regular expressions whose matches are replaced by the redaction marker. */
    patterns: z.array(z.string()).default([]),
  })
  .prefault({});

// The permissions section belongs to the policy, which the kernel reads without importing bot/; one schema, one
// meaning. It adds the built-in `viewer` and `patrol` roles and checks that every role it names exists.
export {
  ChannelSettingsSchema,
  IdentitySettingsSchema,
  PermissionSettingsSchema,
  RoleSettingsSchema,
} from '../../agent/policy/permission-settings.js';

export const AliasSettingsSchema = z.record(z.string(), z.string());

export const SlackSettingsSchema = z
  .strictObject({
    /** Other bots (B…) whose messages opsbot answers; every other bot is ignored, to prevent bot loops. */
    allowed_bot_ids: z
      .array(z.string().regex(/^B[A-Z0-9]+$/, 'a Slack bot id such as B0123ABCD'))
      .default([]),
  })
  .prefault({});

export const SettingsSchema = z.strictObject({
  /** The bot's name, as people mention it. */
  bot_name: z.string().default('opsbot'),
  limits: LimitsSettingsSchema,
  model: ModelSettingsSchema,
  redaction: RedactionSettingsSchema,
  permissions: PermissionSettingsSchema,
  /** The tool pack's own section (tools/tool-settings-schema.ts), so tools/ never imports bot/. */
  tools: ToolSettingsSchema,
  /** Short names for commands in the command engine: `disk: disk_usage paths=/`. */
  aliases: AliasSettingsSchema.default({}),
  slack: SlackSettingsSchema,
});

export type Settings = z.output<typeof SettingsSchema>;
export type PermissionSettings = Settings['permissions'];
export type ToolSettings = Settings['tools'];
export type LimitsSettings = Settings['limits'];
