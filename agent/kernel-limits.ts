// How far one run may go: the `limits:` settings as opsbot.yaml spells them, holding the one default of each.
// The bot's settings schema embeds this schema, and the kernel's defaults are this schema parsed from nothing.
import { z } from 'zod';
import { DurationSchema } from './policy/duration.js';
import type { ToolBudgets } from './tool-budgets.js';

const ToolBudgetsSettingsSchema = z
  .strictObject({
    default_calls: z
      .number()
      .int()
      .min(1)
      .default(20)
      .describe(
        'Calls the model may make of any one tool in a run, unless `calls` names the tool. A call answered from ' +
          "the run's earlier results, or refused, runs nothing and spends nothing.",
      ),
    calls: z
      .record(z.string(), z.number().int().min(1))
      .default({})
      .describe(
        'Per-tool call budgets by tool name, such as `http_check: 30`; each name must be a known tool.',
      ),
  })
  .prefault({});

export const KernelLimitsSettingsSchema = z.strictObject({
  max_steps: z
    .number()
    .int()
    .min(1)
    .max(200)
    .default(12)
    .describe(
      'Model turns (or command steps) per run; past it the run stops with a message naming this limit.',
    ),
  max_tool_calls: z.number().int().min(1).default(40).describe('Tool calls per run, across all its steps.'),
  tool_budgets: ToolBudgetsSettingsSchema.describe(
    'How many calls of one tool the model may make in a run. Past it, the next call of that tool is refused and ' +
      'the model is told to use another tool or answer; the run goes on. Patrol checks and typed commands have ' +
      'no per-tool budget.',
  ),
  max_tokens: z
    .number()
    .int()
    .min(1000)
    .default(200_000)
    .describe('Model tokens per run, prompt and completion together.'),
  max_wall_time: DurationSchema.default(10 * 60_000).describe(
    'Working time of a run, from the request to the answer, not counting time spent waiting for people.',
  ),
  tool_timeout: DurationSchema.default(30_000).describe(
    "The upper bound on any single tool call. A tool's own default time limit, a command's `timeout` and the model's `timeout_ms` argument apply only below it: the call gets the smaller. At the limit the call is stopped and fails with \"timed out after …\".",
  ),
  question_ttl: DurationSchema.default(24 * 3_600_000).describe(
    'How long a question to a person stays open; unanswered, the run expires.',
  ),
  expiry_sweep: DurationSchema.refine(
    (ms) => ms >= 1000 && ms <= 10_000,
    'between 1s and 10s: waits must close promptly',
  )
    .default(10_000)
    .describe(
      'The longest the expiry sweep sleeps between passes (1s to 10s), so an expired question or approval is ' +
        'closed at most this late; it also wakes at the next known expiry.',
    ),
  max_task_chars: z.number().int().min(100).default(20_000).describe('The longest request text accepted.'),
  tool_output_chars: z
    .number()
    .int()
    .min(1000)
    .default(16_000)
    .describe('Tool output shown to the model per call; the rest is cut, head and tail kept, and marked.'),
});
export type KernelLimitsSettings = z.output<typeof KernelLimitsSettingsSchema>;

/** The same limits in the kernel's words, durations in ms. */
export function kernelLimitsFromSettings(settings: KernelLimitsSettings) {
  return {
    maxSteps: settings.max_steps,
    maxToolCalls: settings.max_tool_calls,
    toolBudgets: {
      defaultCalls: settings.tool_budgets.default_calls,
      calls: settings.tool_budgets.calls,
    } satisfies ToolBudgets,
    maxTokens: settings.max_tokens,
    maxWallTimeMs: settings.max_wall_time,
    toolTimeoutMs: settings.tool_timeout,
    questionTtlMs: settings.question_ttl,
    expirySweepMs: settings.expiry_sweep,
    maxTaskChars: settings.max_task_chars,
    toolOutputChars: settings.tool_output_chars,
  };
}

export const KernelLimitsSchema = KernelLimitsSettingsSchema.transform(kernelLimitsFromSettings);
export type KernelLimits = z.output<typeof KernelLimitsSchema>;

export const DEFAULT_LIMITS: Readonly<KernelLimits> = Object.freeze(KernelLimitsSchema.parse({}));
