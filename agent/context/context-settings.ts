// How much prompt a model takes and when to compress it: the context keys of opsbot.yaml's `model:` section.
// The bot's settings schema embeds this schema, and the engines' defaults are this schema parsed from nothing.
import { z } from 'zod';

export const ContextSettingsSchema = z.strictObject({
  /** Tokens the model accepts in one request. */
  context_window: z.number().int().min(2048).default(128_000),
  /** Fraction of the context window at which older context is compressed. */
  compress_at: z.number().min(0.1).max(0.95).default(0.8),
});
export type ContextSettings = z.output<typeof ContextSettingsSchema>;

export const DEFAULT_CONTEXT: Readonly<ContextSettings> = Object.freeze(ContextSettingsSchema.parse({}));
