// The shape of opsbot.yaml: every setting that is not a secret or an endpoint, validated once at start-up.
// Objects are strict: a misspelt key (`risk:` for `risks:`) would otherwise be dropped silently and its default
// would apply. The loader applies the same rule to the sections other modules own (see settings-strictness.ts).
import { z } from 'zod';
import { ContextSettingsSchema } from '../../agent/context/context-settings.js';
import { KernelLimitsSettingsSchema } from '../../agent/kernel-limits.js';
import { DurationSchema } from '../../agent/policy/duration.js';
import { PermissionSettingsSchema } from '../../agent/policy/permission-settings.js';
import { PatrolsSchema } from '../../scheduled/patrol-settings.js';
import { ToolSettingsSchema } from '../../tools/tool-settings-schema.js';

// The kernel's limits and context keys are defined (with their defaults) in agent/, which cannot import bot/;
// the model request keys belong to the bot, which builds the model client.
export const LimitsSettingsSchema = KernelLimitsSettingsSchema.extend({
  model_timeout: DurationSchema.default(60_000),
  model_retries: z.number().int().min(0).max(10).default(2),
  /** How long patrol runs and each patrol's history are kept. */
  patrol_history: DurationSchema.default(7 * 86_400_000),
  /** Runs one process steps at once (a worker, or the whole bot in one process). */
  worker_concurrency: z.number().int().min(1).max(1000).default(32),
  /**
   * How long the runs of a process that stopped answering (killed, frozen, cut off) stay its own before another
   * process takes them over: the run lease, and with Redis the queue job's lock. A live process renews it.
   */
  worker_lock: DurationSchema.refine((ms) => ms >= 1000, 'at least 1s').default(20_000),
}).prefault({});

export const ModelSettingsSchema = ContextSettingsSchema.extend({
  temperature: z.number().min(0).max(2).optional(),
  /**
   * What the team tells the model about its own systems, added to every system prompt: where services live,
   * which hosts are which, who owns what. Trusted text, written by the people who run opsbot; it cannot change
   * permissions or approvals, which are enforced outside the model.
   */
  instructions: z.string().max(8000).default(''),
}).prefault({});

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

export const DiscordSettingsSchema = z
  .strictObject({
    /**
     * Ask the gateway for the MessageContent intent, so plain replies in a thread (without a mention) reach
     * opsbot. It is privileged: enable it in the developer portal first. Without it, mentions, DMs and /ops work.
     */
    message_content: z.boolean().default(false),
    /** Other bots (by user id) whose messages opsbot answers; every other bot is ignored, to prevent bot loops. */
    allowed_bot_ids: z.array(z.string().regex(/^\d{17,20}$/, 'a Discord user id (a snowflake)')).default([]),
    /**
     * Discord allows one gateway session per bot token, so one gateway process holds it, through a claim in the
     * Store that it renews every quarter of this; a killed leader's session is taken over after about this long.
     */
    session_lock: DurationSchema.refine((ms) => ms >= 1000, 'at least 1s').default(20_000),
  })
  .prefault({});

export const PlaygroundSettingsSchema = z
  .strictObject({
    /**
     * Channels the playground may hold, those a patrol opens (`playground:<name>`) included. Each one adds to what
     * a page load and a reconnect read, so a script creating channels without end cannot stall the server.
     */
    max_channels: z.number().int().min(1).max(1000).default(50),
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
  discord: DiscordSettingsSchema,
  /** Scheduled patrols by name (scheduled/patrol-settings.ts): checks on a timer that post only changes. */
  patrols: PatrolsSchema,
  /** The local playground's limits (bot/playground). */
  playground: PlaygroundSettingsSchema,
});

export type Settings = z.output<typeof SettingsSchema>;
export type PermissionSettings = Settings['permissions'];
export type ToolSettings = Settings['tools'];
export type LimitsSettings = Settings['limits'];
