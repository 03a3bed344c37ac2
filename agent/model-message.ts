// The chat transcript a run keeps for the model, in a shape any OpenAI-compatible server accepts.
import { z } from 'zod';

export const ModelToolCallSchema = z.object({
  id: z.string(),
  name: z.string(),
  /** The arguments exactly as the model wrote them. */
  arguments: z.string(),
});
export type ModelToolCall = z.infer<typeof ModelToolCallSchema>;

export const ModelMessageSchema = z.discriminatedUnion('role', [
  z.object({ role: z.literal('system'), content: z.string() }),
  z.object({ role: z.literal('user'), content: z.string() }),
  z.object({
    role: z.literal('assistant'),
    content: z.string().nullable(),
    toolCalls: z.array(ModelToolCallSchema).default([]),
  }),
  z.object({ role: z.literal('tool'), toolCallId: z.string(), name: z.string(), content: z.string() }),
]);
export type ModelMessage = z.infer<typeof ModelMessageSchema>;

export const UsageSchema = z.object({
  promptTokens: z.number().int().nonnegative().default(0),
  completionTokens: z.number().int().nonnegative().default(0),
  modelCalls: z.number().int().nonnegative().default(0),
  toolCalls: z.number().int().nonnegative().default(0),
});
export type Usage = z.infer<typeof UsageSchema>;
