// How far one run may go: the `limits:` settings as opsbot.yaml spells them, holding the one default of each.
// The bot's settings schema embeds this schema, and the kernel's defaults are this schema parsed from nothing.
import { z } from 'zod';
import { DurationSchema } from './policy/duration.js';

export const KernelLimitsSettingsSchema = z.strictObject({
  max_steps: z.number().int().min(1).max(200).default(12),
  max_tool_calls: z.number().int().min(1).default(40),
  max_tokens: z.number().int().min(1000).default(200_000),
  max_wall_time: DurationSchema.default(10 * 60_000),
  tool_timeout: DurationSchema.default(30_000).describe(
    "The upper bound on any single tool call. A tool's own default time limit, a command's `timeout` and the model's `timeout_ms` argument apply only below it: the call gets the smaller. At the limit the call is stopped and fails with \"timed out after …\".",
  ),
  question_ttl: DurationSchema.default(24 * 3_600_000),
  /** How long the expiry sweep sleeps at most between passes; it also wakes at the next known expiry. */
  expiry_sweep: DurationSchema.refine(
    (ms) => ms >= 1000 && ms <= 10_000,
    'between 1s and 10s: waits must close promptly',
  ).default(10_000),
  max_task_chars: z.number().int().min(100).default(20_000),
  tool_output_chars: z.number().int().min(1000).default(16_000),
});
export type KernelLimitsSettings = z.output<typeof KernelLimitsSettingsSchema>;

/** The same limits in the kernel's words, durations in ms. */
export function kernelLimitsFromSettings(settings: KernelLimitsSettings) {
  return {
    maxSteps: settings.max_steps,
    maxToolCalls: settings.max_tool_calls,
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
