// The MCP side of a scenario: the world's MCP servers (each our test server over stdio, with the tool set the
// scenario gives) and what a judge may ask of them, of the tools offered and of the approval card.
import { z } from 'zod';
import { ToolFileSchema } from '../tests/fakes/mcp/test-mcp-tools.js';
import { ValueMatcherSchema } from './value-matcher-schema.js';

const McpToolsSchema = ToolFileSchema.shape.tools;

export const McpWorldServerSchema = z
  .object({
    /** The tools the server lists during the run (tests/fakes/mcp/test-mcp-tools.ts: name, behaviour, ...). */
    tools: McpToolsSchema,
    /**
     * The tools as opsbot first saw them, before this run: pinned in the store, so that a tool listed differently
     * now is held back. Absent: the run is the server's first sight, and every listed tool is trusted.
     */
    trusted: McpToolsSchema.optional(),
  })
  .strict();
export type McpWorldServer = z.infer<typeof McpWorldServerSchema>;

/** A call one of the world's MCP servers received, by the server's name and the tool's own name. */
export const McpCallExpectationSchema = z
  .object({
    server: z.string().min(1),
    tool: z.string().min(1),
    /** Each listed argument must match; only for mcp_called. */
    args: z.record(z.string(), ValueMatcherSchema).optional(),
  })
  .strict();
export type McpCallExpectation = z.infer<typeof McpCallExpectationSchema>;

/** The approval card the bot posted for a tool: its arguments as shown, and text it must show. */
export const ApprovalCardExpectationSchema = z
  .object({
    tool: z.string().min(1),
    /** Each listed argument must match the card's arguments. */
    args: z.record(z.string(), ValueMatcherSchema).default({}),
    /** Text the card shows (its arguments and what will run), case-insensitive. */
    contains: z.array(z.string()).default([]),
  })
  .strict();
export type ApprovalCardExpectation = z.infer<typeof ApprovalCardExpectationSchema>;
