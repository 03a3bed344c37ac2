// An MCP tool's input as a zod schema: its JSON Schema converted, so the kernel checks the model's arguments and
// offers the model the schema as the server wrote it; a schema zod cannot convert falls back to "any object".
import { z } from 'zod';
import { errorMessage } from '../../agent/errors.js';
import { toolParametersSchema } from '../../agent/tool.js';

export type McpToolInput =
  | { kind: 'converted'; input: z.ZodType }
  /** The server checks the arguments itself; `problem` says why opsbot could not, for the start-up log. */
  | { kind: 'unchecked'; input: z.ZodType; problem: string };

/**
 * z.fromJSONSchema, kept only when the result is an object schema that converts back to JSON Schema for the model.
 * Otherwise (an unresolvable `$ref`, a top-level `anyOf`, a keyword zod does not know) any JSON object is accepted
 * and passed on: refusing the tool would lose it for a schema detail, and the server validates its own input.
 */
export function mcpToolInput(inputSchema: Readonly<Record<string, unknown>>): McpToolInput {
  try {
    const input = z.fromJSONSchema(inputSchema as Parameters<typeof z.fromJSONSchema>[0]);
    toolParametersSchema(input);
    return { kind: 'converted', input };
  } catch (error) {
    return { kind: 'unchecked', input: z.looseObject({}), problem: errorMessage(error) };
  }
}
