// A tool as an MCP server lists it: the four fields opsbot pins and offers, checked with zod at the boundary.
import { z } from 'zod';

/** The hints MCP defines; a server may add more, kept as given (pins cover them too). */
const AnnotationsSchema = z
  .object({
    title: z.string().optional(),
    readOnlyHint: z.boolean().optional(),
    destructiveHint: z.boolean().optional(),
    idempotentHint: z.boolean().optional(),
    openWorldHint: z.boolean().optional(),
  })
  .loose();

export const McpToolDefinitionSchema = z.object({
  name: z.string().min(1),
  description: z.string().optional(),
  /** A JSON Schema whose top level MCP requires to be an object schema. */
  inputSchema: z.object({ type: z.literal('object') }).loose(),
  annotations: AnnotationsSchema.optional(),
});

export type McpToolDefinition = z.infer<typeof McpToolDefinitionSchema>;

/** Only the pinned fields: what else a server lists (icons, _meta, output schemas) is not offered to the model. */
export function toolDefinitionOf(listed: unknown): McpToolDefinition {
  const parsed = McpToolDefinitionSchema.parse(listed);
  return {
    name: parsed.name,
    ...(parsed.description === undefined ? {} : { description: parsed.description }),
    inputSchema: parsed.inputSchema,
    ...(parsed.annotations === undefined ? {} : { annotations: parsed.annotations }),
  };
}
