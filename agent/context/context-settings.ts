// How much prompt a model takes and when to compress it: the context keys of opsbot.yaml's `model:` section.
// The bot's settings schema embeds this schema, and the engines' defaults are this schema parsed from nothing.
import { z } from 'zod';

export const ContextSettingsSchema = z.strictObject({
  context_window: z
    .number()
    .int()
    .min(2048)
    .default(128_000)
    .describe('Tokens the model accepts in one request; set it lower for small local models (such as 8192).'),
  compress_at: z
    .number()
    .min(0.1)
    .max(0.95)
    .default(0.8)
    .describe(
      'The share of the context window at which older context is compressed: long tool outputs cut to head and ' +
        'tail, repeated calls collapsed, then older turns summarized by one model call.',
    ),
  // Outputs are cut in batches so that the prompt's prefix changes once per batch, not on every turn, and
  // provider prefix caches keep hitting.
  keep_tool_outputs: z
    .number({ error: 'keep_tool_outputs must be a whole number of tool-result turns, such as 4' })
    .int('keep_tool_outputs must be a whole number of tool-result turns, such as 4')
    .min(1, 'keep_tool_outputs must be at least 1: the latest tool output is always kept in full')
    .max(100, 'keep_tool_outputs must be at most 100')
    .default(4)
    .describe(
      'Tool-result turns at the end of a run whose full output the model keeps seeing. Older outputs are replaced ' +
        'by the one-line summary their tool gave (calling the tool again with the same arguments shows the full ' +
        'output without running it twice). They are cut in batches, once this many more turns have piled up.',
    ),
});
export type ContextSettings = z.output<typeof ContextSettingsSchema>;

export const DEFAULT_CONTEXT: Readonly<ContextSettings> = Object.freeze(ContextSettingsSchema.parse({}));
