// How much prompt a model takes and when to compress it: the context keys of opsbot.yaml's `model:` section.
// The bot's settings schema embeds this schema, and the engines' defaults are this schema parsed from nothing.
import { z } from 'zod';

export const ContextSettingsSchema = z.strictObject({
  /** Tokens the model accepts in one request. */
  context_window: z.number().int().min(2048).default(128_000),
  /** Fraction of the context window at which older context is compressed. */
  compress_at: z.number().min(0.1).max(0.95).default(0.8),
  /**
   * Tool-result turns at the end of a run whose full output the model keeps seeing; older outputs are replaced
   * by their one-line summary (the model can call the tool again to see one in full, and it is not run twice).
   * Outputs are cut in batches: only once this many more turns have piled up are they cut back to this many, so
   * the prompt's prefix changes once per batch rather than on every turn, and provider prefix caches keep hitting.
   */
  keep_tool_outputs: z
    .number({ error: 'keep_tool_outputs must be a whole number of tool-result turns, such as 4' })
    .int('keep_tool_outputs must be a whole number of tool-result turns, such as 4')
    .min(1, 'keep_tool_outputs must be at least 1: the latest tool output is always kept in full')
    .max(100, 'keep_tool_outputs must be at most 100')
    .default(4),
});
export type ContextSettings = z.output<typeof ContextSettingsSchema>;

export const DEFAULT_CONTEXT: Readonly<ContextSettings> = Object.freeze(ContextSettingsSchema.parse({}));
