// The most tokens each kind of model call may write (`model.max_output_tokens`), sent as the request's cap.
import { z } from 'zod';
import type { ModelPurpose } from './model-port.js';

const cap = (what: string, tokens: number) =>
  z
    .number({ error: `expected a whole number of tokens, such as ${tokens}` })
    .int(`expected a whole number of tokens, such as ${tokens}`)
    .min(16, 'expected at least 16 tokens: fewer cannot hold an answer')
    .max(1_000_000, 'expected at most 1000000 tokens')
    .default(tokens)
    .describe(what);

export const ModelOutputCapsSchema = z
  .strictObject({
    tool_loop: cap(
      "A turn of the tool loop: the model's tool calls or its answer. A reply cut at the cap ends with " +
        'finish reason `length`; raise it for models that think aloud before answering.',
      4096,
    ),
    context_summary: cap(
      "The summary of a run's older turns when its context is compressed (at most 15 short bullet points).",
      1024,
    ),
    patrol_summary: cap("A patrol's summary of its checks' results (at most three short sentences).", 256),
  })
  .prefault({}) satisfies z.ZodType<Record<ModelPurpose, number>>;

export type ModelOutputCaps = z.output<typeof ModelOutputCapsSchema>;
