// The shape of opsbot.yaml: every setting that is not a secret or an endpoint, validated once at start-up.
// Objects are strict: a misspelt key (`risk:` for `risks:`) would otherwise be dropped silently and its default
// would apply. The loader applies the same rule to the sections other modules own (see settings-strictness.ts).
import { z } from 'zod';
import { ContextSettingsSchema } from '../../agent/context/context-settings.js';
import { KernelLimitsSettingsSchema } from '../../agent/kernel-limits.js';
import { ModelOutputCapsSchema } from '../../agent/model/model-output-caps.js';
import { ModelRateLimitSettingsSchema } from '../../agent/model/model-rate-limit-settings.js';
import { DurationSchema } from '../../agent/policy/duration.js';
import { PermissionSettingsSchema } from '../../agent/policy/permission-settings.js';
import { PatrolsSchema } from '../../scheduled/patrol-settings.js';
import { McpSettingsSchema } from '../../tools/mcp/mcp-settings.js';
import { ToolSettingsSchema } from '../../tools/tool-settings-schema.js';
import { AlertSettingsSchema } from '../alerts/alert-settings.js';
import { EngineSettingsSchema } from './engine-settings.js';

// The kernel's limits and context keys are defined (with their defaults) in agent/, which cannot import bot/;
// the model request keys belong to the bot, which builds the model client.
export const LimitsSettingsSchema = KernelLimitsSettingsSchema.extend({
  model_timeout: DurationSchema.default(60_000).describe('The deadline of one model request.'),
  model_retries: z
    .number()
    .int()
    .min(0)
    .max(10)
    .default(2)
    .describe('Retries of a failed model request (rate limits, 5xx, timeouts), honouring `Retry-After`.'),
  patrol_history: DurationSchema.default(7 * 86_400_000).describe(
    "How long patrol runs, each patrol's history and resolved reports are kept.",
  ),
  trace_history: DurationSchema.refine((ms) => ms >= 60_000, 'at least 1m')
    .default(30 * 86_400_000)
    .describe(
      "How long a run's trace is kept in the store after the run ends, for `opsbot trace <run>` from any machine " +
        'with the store. The copy in `OPSBOT_DATA_DIR/traces` on the machine that stepped the run is not removed.',
    ),
  worker_concurrency: z
    .number()
    .int()
    .min(1)
    .max(1000)
    .default(32)
    .describe(
      'Runs one process steps at once (a worker, or the whole bot in one process). Runs waiting for a model use ' +
        'no CPU, so raise this before adding processes.',
    ),
  worker_lock: DurationSchema.refine((ms) => ms >= 1000, 'at least 1s')
    .default(20_000)
    .describe(
      'How long the runs of a process that stopped answering (killed, frozen, cut off) stay its own before ' +
        "another process takes them over: the run lease, and with Redis the queue job's lock. A live process " +
        'renews it.',
    ),
}).prefault({});

export const ModelSettingsSchema = ContextSettingsSchema.extend({
  temperature: z
    .number()
    .min(0)
    .max(2)
    .optional()
    .describe("The sampling temperature; the server's default when absent."),
  instructions: z
    .string()
    .max(8000)
    .default('')
    .describe(
      "What the team tells the model about its own systems, added to every system prompt as the team's notes: " +
        'where the health checks are, which host is which, what "prod" means. Trusted text; it cannot change ' +
        'permissions or approvals, which are decided outside the model.',
    ),
  summary: z
    .string()
    .trim()
    .min(1, 'expected a model name, such as gpt-4o-mini')
    .optional()
    .describe(
      'A second, smaller model for the summaries (context compression, patrol results), on the same server with ' +
        'the same key; the main model writes them when absent. `OPENAI_SUMMARY_MODEL` wins over this key.',
    ),
  max_output_tokens: ModelOutputCapsSchema.describe(
    "The most tokens the model may write, per kind of call; sent as each request's cap.",
  ),
  output_cap_field: z
    .enum(['max_tokens', 'max_completion_tokens'], { error: 'expected max_tokens or max_completion_tokens' })
    .default('max_tokens')
    .describe(
      'The request field that carries the cap. `max_tokens` is read by every OpenAI-compatible server (Ollama, ' +
        "vLLM, LiteLLM); OpenAI's reasoning models (o-series, gpt-5) refuse it and need `max_completion_tokens`.",
    ),
  rate_limit: ModelRateLimitSettingsSchema.describe(
    "This process's pace of model requests, both models together; the defaults never slow a normal run.",
  ),
}).prefault({});

export const RedactionSettingsSchema = z
  .strictObject({
    patterns: z
      .array(z.string())
      .default([])
      .describe(
        'Extra regular expressions whose matches are replaced by `[REDACTED]`, on top of the built-in shapes.',
      ),
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
    allowed_bot_ids: z
      .array(z.string().regex(/^B[A-Z0-9]+$/, 'a Slack bot id such as B0123ABCD'))
      .default([])
      .describe(
        'Other bots (by bot id, `B…`) whose messages opsbot answers; every other bot, and opsbot itself, is ' +
          'ignored, so that two bots never talk each other into a loop.',
      ),
  })
  .prefault({});

export const DiscordSettingsSchema = z
  .strictObject({
    message_content: z
      .boolean()
      .default(false)
      .describe(
        'Ask the gateway for the privileged MessageContent intent, so plain replies in a thread (without a ' +
          'mention) reach opsbot. Enable it in the developer portal first. Without it, mentions, DMs and /ops work.',
      ),
    allowed_bot_ids: z
      .array(z.string().regex(/^\d{17,20}$/, 'a Discord user id (a snowflake)'))
      .default([])
      .describe(
        'Other bots (by user id) whose messages opsbot answers; every other bot is ignored, to prevent loops.',
      ),
    session_lock: DurationSchema.refine((ms) => ms >= 1000, 'at least 1s')
      .default(20_000)
      .describe(
        'Discord allows one gateway session per bot token, so one gateway process holds it through a claim in the ' +
          "Store, renewed every quarter of this; a killed holder's session is taken over after about this long.",
      ),
  })
  .prefault({});

export const PlaygroundSettingsSchema = z
  .strictObject({
    max_channels: z
      .number()
      .int()
      .min(1)
      .max(1000)
      .default(50)
      .describe(
        'Channels the playground may hold, `#ops` and those patrols post to (`playground:<name>`) included; ' +
          'creating one more is refused (409) with this key named.',
      ),
  })
  .prefault({});

export const SettingsSchema = z.strictObject({
  bot_name: z.string().default('opsbot').describe("The bot's name, as people mention it."),
  limits: LimitsSettingsSchema.describe('How far one run may go before opsbot stops it and says why.'),
  model: ModelSettingsSchema.describe(
    'How the model is used. The model itself is chosen in the environment (`OPENAI_MODEL`, `OPENAI_BASE_URL`).',
  ),
  engines: EngineSettingsSchema.describe(
    'Which model engine runs a task: by default, and per channel. `/ops plan <task>` and `opsbot run --engine` pick one per task.',
  ),
  redaction: RedactionSettingsSchema.describe(
    'Secrets removed from everything the model, traces, logs and chat see.',
  ),
  permissions: PermissionSettingsSchema.describe('Roles, who has them, channel rules and approvals.'),
  // The tool pack owns its section (tools/tool-settings-schema.ts), so tools/ never imports bot/.
  tools: ToolSettingsSchema.describe(
    'Allow-listed commands, your own tools, and what the built-in tools may reach.',
  ),
  // tools/mcp/mcp-settings.ts owns the MCP keys, beside the rest of the tool pack.
  mcp: McpSettingsSchema.describe(
    'Model Context Protocol servers whose tools opsbot offers, each tool pinned at first sight so that a changed one is held back until an admin trusts it.',
  ),
  aliases: AliasSettingsSchema.default({}).describe(
    'Short names for the command engine: `disk: disk_usage` makes `disk paths=/var` run `disk_usage paths=/var`.',
  ),
  slack: SlackSettingsSchema.describe('Slack, beyond its tokens in the environment.'),
  discord: DiscordSettingsSchema.describe('Discord, beyond its tokens in the environment.'),
  // scheduled/patrol-settings.ts owns the patrol keys.
  patrols: PatrolsSchema.describe(
    'Scheduled patrols by name (lower case, digits, `-`, `_`): read-only checks on a timer that post only what changes.',
  ),
  // bot/alerts/alert-settings.ts owns the alert keys.
  alerts: AlertSettingsSchema.describe(
    "Alertmanager's notifications (`POST /alerts/alertmanager`, on with `OPSBOT_ALERTS_TOKEN`): one thread per alert group, posted only when its firing set changes.",
  ),
  playground: PlaygroundSettingsSchema.describe(
    "The local playground's limits; the others are fixed (see [security.md](security.md#the-playgrounds-limits)).",
  ),
});

export type Settings = z.output<typeof SettingsSchema>;
export type PermissionSettings = Settings['permissions'];
export type ToolSettings = Settings['tools'];
export type LimitsSettings = Settings['limits'];
