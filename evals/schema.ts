// What one eval scenario is: who asks what, in which world, with which scripted model, and what must happen.
import { z } from 'zod';
import { AlertBlockSchema, alertIssues } from './alert-schema.js';
import {
  ApprovalCardExpectationSchema,
  McpCallExpectationSchema,
  McpWorldServerSchema,
} from './mcp-schema.js';
import { PatrolBlockSchema, taskOrPatrolIssues } from './patrol-schema.js';
import { ValueMatcherSchema } from './value-matcher-schema.js';

export const GROUPS = [
  'diagnosis',
  'missing_details',
  'approvals',
  'permissions',
  'hostile_output',
  'secrets',
  'budgets',
  'long_work',
  'failure',
  'patrols',
  'small_models',
  'alerts',
  'mcp',
  'safety',
  'plan',
] as const;
export const GroupSchema = z.enum(GROUPS);

/** A settings identity key (`local:alice`, `slack:U123`) and the roles the scenario gives it. */
const IdentitySchema = z
  .object({
    identity: z
      .string()
      .regex(/^(local|slack|discord):[A-Za-z0-9_.-]+$/, 'an identity key such as local:alice'),
    roles: z.array(z.string().min(1)).min(1),
    display_name: z.string().optional(),
  })
  .strict();
export type Identity = z.infer<typeof IdentitySchema>;

/**
 * The person who asks: an identity, and what they know. `knows` are the facts they can tell the bot when it asks
 * (placeholders filled); `persona` is how they come across (terse, in a hurry), for the simulated user of a live
 * run. Scripted, questions are answered from the facts by a fixed rule (simulated-user.ts).
 */
const WhoSchema = IdentitySchema.extend({
  knows: z.array(z.string().min(1)).default([]),
  persona: z.string().min(1).optional(),
}).strict();
export type Who = z.infer<typeof WhoSchema>;

const HttpAnswerSchema = z
  .object({
    status: z.number().int().min(100).max(599).default(200),
    body: z.string().default('ok'),
    delay_ms: z.number().int().min(0).max(10_000).default(0),
    content_type: z.string().default('text/plain'),
  })
  .strict();

const HttpTargetSchema = HttpAnswerSchema.extend({
  /**
   * Answers by request path (`/api/v1/query`, the query string left out), for a fake of an API such as
   * Prometheus's; a path not listed gets the target's own status and body.
   */
  paths: z.record(z.string().regex(/^\//, 'a path starting with /'), HttpAnswerSchema).default({}),
}).strict();

export const WorldSchema = z
  .object({
    /** Local HTTP servers, referenced as {{http.<name>.url}}. */
    http: z.record(z.string(), HttpTargetSchema).default({}),
    /** Local TCP ports, open (listening) or closed, referenced as {{tcp.<name>.port}} / {{tcp.<name>.host}}. */
    tcp: z.record(z.string(), z.object({ open: z.boolean() }).strict()).default({}),
    /** Log files in one temporary directory ({{logs.dir}}), which becomes the only log root. */
    logs: z.record(z.string(), z.array(z.string())).default({}),
    /**
     * MCP servers by name, each the test server (tests/fakes/mcp/test-mcp-server.ts) over stdio with the tools
     * given; `mcp.servers.<name>` is set up for it, and the scenario's settings may add to it (`tools.risk`).
     */
    mcp: z.record(z.string(), McpWorldServerSchema).default({}),
  })
  .strict()
  .default({ http: {}, tcp: {}, logs: {}, mcp: {} });
export type World = z.infer<typeof WorldSchema>;

const ToolCallTurnSchema = z
  .object({
    tool_calls: z
      .array(
        z
          .object({
            name: z.string().min(1),
            /** The arguments as an object; a string is sent as is (a model that writes broken JSON). */
            args: z.union([z.record(z.string(), z.unknown()), z.string()]).default({}),
          })
          .strict(),
      )
      .min(1),
    content: z.string().optional(),
    usage: z.object({ prompt: z.number().int(), completion: z.number().int() }).strict().optional(),
  })
  .strict();
const TextTurnSchema = z
  .object({
    text: z.string(),
    usage: z.object({ prompt: z.number().int(), completion: z.number().int() }).strict().optional(),
  })
  .strict();
/** A model failure: the fake server answers this turn with an HTTP error. */
const ErrorTurnSchema = z.object({ error_status: z.number().int().min(400).max(599) }).strict();
/** A reply that is not a chat completion: this body, sent with status 200. */
const MalformedTurnSchema = z.object({ malformed_body: z.string() }).strict();
/** No reply at all, until opsbot's model timeout gives up (a hung model server). */
const NoReplyTurnSchema = z.object({ no_reply: z.literal(true) }).strict();
export const ModelTurnSchema = z.union([
  ToolCallTurnSchema,
  TextTurnSchema,
  ErrorTurnSchema,
  MalformedTurnSchema,
  NoReplyTurnSchema,
]);
export type ModelTurn = z.infer<typeof ModelTurnSchema>;

const AnswerRuleSchema = z
  .object({
    /** Answers a question whose text contains this (case-insensitive); absent matches any question. */
    match: z.string().optional(),
    answer: z.string().optional(),
    first_choice: z.boolean().optional(),
  })
  .strict()
  .refine((rule) => (rule.answer === undefined) !== (rule.first_choice !== true), {
    message: 'give exactly one of answer or first_choice: true',
  });

const ApprovalRuleSchema = IdentitySchema.extend({
  tool: z.string().min(1),
  /** `let_expire`: nobody clicks; the clock moves past the approval's lifetime and the kernel expires it. */
  decision: z.enum(['approve', 'deny', 'let_expire']),
  reason: z.string().optional(),
}).strict();

export const PersonSchema = z
  .object({
    answers: z.array(AnswerRuleSchema).default([]),
    approvals: z.array(ApprovalRuleSchema).default([]),
  })
  .strict()
  .default({ answers: [], approvals: [] });
export type Person = z.infer<typeof PersonSchema>;

export { ValueMatcherSchema };

const ToolExpectationSchema = z
  .object({
    name: z.string().min(1),
    /** Each listed argument must match; arguments not listed are not checked. */
    args: z.record(z.string(), ValueMatcherSchema).optional(),
    /** Whether the tool's result was ok; unchecked when absent. */
    ok: z.boolean().optional(),
    /** The class of a refused or failed call: permission_denied, refused_by_policy, invalid_argument, transient. */
    error_class: z.string().optional(),
  })
  .strict();
export type ToolExpectation = z.infer<typeof ToolExpectationSchema>;

const TextMatcherSchema = z
  .object({
    contains: z.array(z.string()).default([]),
    not_contains: z.array(z.string()).default([]),
    matches: z.string().optional(),
  })
  .strict();

/**
 * The answer's text checks. Each `contains` term must also be grounded: found in a tool result of the run or in
 * the task (judge-grounding.ts). `mentions_outcome` terms are the bot's own words about how the run went
 * ("refused", "approved", "step limit"), which no tool returns: they must be in the answer, and are not grounded.
 */
const AnswerMatcherSchema = TextMatcherSchema.extend({
  mentions_outcome: z.array(z.string()).default([]),
}).strict();

/**
 * What the run's calls came to, as the kernel keeps it (agent/run-outcomes.ts) and as the status line, the result
 * cards and `opsbot run`'s exit code read it. Each list names the tools whose last call ended that way.
 */
const OutcomeExpectSchema = z
  .object({
    /** true: finished well; false: finished with a problem, or did not finish. */
    ok: z.boolean().optional(),
    /** What `opsbot run` exits with for this run: 0 ok, 1 failed or with a problem, 3 waiting. */
    exit_code: z.union([z.literal(0), z.literal(1), z.literal(3)]).optional(),
    passed: z.array(z.string()).optional(),
    failed: z.array(z.string()).optional(),
    refused: z.array(z.string()).optional(),
    /** A refused call is the bot's own result card in the chat, naming the tool ("<tool> was refused"). */
    refusal_shown: z.boolean().optional(),
    /** The run found itself stuck and asked its requester how to go on (a `stuck` event). */
    stuck: z.boolean().optional(),
    /** The answer came from a last turn without tools, and why; `none` for an answer from a normal turn. */
    wrap_up: z.enum(['step_limit', 'requester', 'none']).optional(),
    /** Calls answered from the run's memory (a repeat, or the same failure again) rather than run. */
    repeats: z.number().int().nonnegative().optional(),
  })
  .strict();

export const ExpectSchema = z
  .object({
    status: z
      .enum([
        'finished',
        'failed',
        'cancelled',
        'expired',
        'outcome_unknown',
        'waiting_for_user',
        'waiting_for_approval',
      ])
      .optional(),
    /** Tools the model called (run or refused; see ok and error_class), in any order. */
    tools: z.array(ToolExpectationSchema).optional(),
    /** Tools the model called, as a subsequence in this order. */
    tools_in_order: z.array(ToolExpectationSchema).optional(),
    /** Tools that must not have run: refused calls (permission_denied, refused_by_policy) do not count as run. */
    tools_not_run: z.array(z.string()).default([]),
    question_asked: z.union([z.boolean(), TextMatcherSchema]).optional(),
    approval_requested: z.union([z.boolean(), z.object({ tool: z.string() }).strict()]).optional(),
    answer: AnswerMatcherSchema.optional(),
    /** Failure code of a failed run (e.g. step_limit). */
    error_code: z.string().optional(),
    /** Text that must appear nowhere: not in any model request, chat message or the answer. */
    never_shown: z.array(z.string()).default([]),
    max_steps: z.number().int().positive().optional(),
    max_tool_calls: z.number().int().nonnegative().optional(),
    max_tokens: z.number().int().positive().optional(),
    /** Whether the run's context was compressed (a `context_compressed` event); unchecked when absent. */
    context_compressed: z.boolean().optional(),
    /** Every message the bot posted, rendered for the scenario's platform (slack or discord), pings nobody. */
    no_pings: z.literal(true).optional(),
    /** The text of the last model request's messages: what the model had in front of it when it answered. */
    last_model_request: TextMatcherSchema.optional(),
    /** Requests the world's HTTP targets must never get (method and path optional: any of them). */
    http_not_requested: z
      .array(
        z
          .object({ target: z.string().min(1), method: z.string().optional(), path: z.string().optional() })
          .strict(),
      )
      .default([]),
    /** Tools every model request offered; and tools none offered (a held-back MCP tool). */
    tools_offered: z.array(z.string()).default([]),
    tools_not_offered: z.array(z.string()).default([]),
    /** Calls the world's MCP servers received, by their own record; and calls they must never have received. */
    mcp_called: z.array(McpCallExpectationSchema).default([]),
    mcp_not_called: z.array(McpCallExpectationSchema).default([]),
    /** The approval card posted for a tool shows these arguments and this text. */
    approval_card: ApprovalCardExpectationSchema.optional(),
    /** The kernel's outcome facts, computed from the run's calls, never from the model's words. */
    outcome: OutcomeExpectSchema.optional(),
  })
  .strict();
export type Expect = z.infer<typeof ExpectSchema>;

export const ScenarioSchema = z
  .object({
    name: z.string().regex(/^[a-z0-9][a-z0-9_-]*$/, 'lower-case words joined by - or _'),
    group: GroupSchema,
    description: z.string().optional(),
    who: WhoSchema,
    platform: z.enum(['playground', 'cli', 'slack', 'discord']).default('playground'),
    /** The channel's name; channel rules in settings say `#<channel>`. */
    channel: z.string().min(1).default('ops'),
    /** What the person types; required unless the scenario has a `patrol:` block instead. */
    task: z.string().min(1).optional(),
    /** A patrol run round by round instead of a task (see patrol-schema.ts). */
    patrol: PatrolBlockSchema.optional(),
    /** An Alertmanager notification instead of a task: the receiver posts it and starts its investigation. */
    alert: AlertBlockSchema.optional(),
    /** Settings YAML merged onto evals/base-settings.yaml (objects merge, everything else replaces). */
    settings: z.record(z.string(), z.unknown()).default({}),
    world: WorldSchema,
    person: PersonSchema,
    /**
     * Why this scenario means nothing against a live model (it scripts a model failure or misbehaviour), so
     * `--live` skips it and says why.
     */
    scripted_only: z.string().min(1).optional(),
    /**
     * What a good answer does, in words, for the optional LLM judge (`--judge-model`): one binary verdict per item.
     * The deterministic checks in `expect` still decide pass or fail whenever the scenario has them.
     */
    rubric: z.array(z.string().min(1)).default([]),
    /** The engine the task starts with (its alert investigation, for an alert); the kernel's choice (react) when absent. */
    engine: z.enum(['react', 'plan']).optional(),
    /** The scripted model: one entry per model request, in order, for the scenario's own engine. */
    model: z.array(ModelTurnSchema).default([]),
    /** The script for another engine, so `--engine plan` (or react) runs the same scenario, compared like for like. */
    scripts: z
      .strictObject({ react: z.array(ModelTurnSchema), plan: z.array(ModelTurnSchema) })
      .partial()
      .optional(),
    expect: ExpectSchema,
  })
  .strict()
  .superRefine((scenario, ctx) => {
    const issues = scenario.alert ? alertIssues(scenario) : taskOrPatrolIssues(scenario);
    for (const issue of issues) ctx.addIssue({ code: 'custom', ...issue });
  });
export type Scenario = z.infer<typeof ScenarioSchema>;
