// An MCP server's tools, every page of its listing, each checked against the definition schema: one that does not
// pass is left out with the reason, so a single odd tool does not take the server's other tools away.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { errorMessage } from '../../agent/errors.js';
import { type McpToolDefinition, toolDefinitionOf } from './mcp-tool-definition.js';

/** A listed tool that did not pass the definition schema: left out, and said why. */
export interface RejectedTool {
  name: string;
  problem: string;
}

export interface McpToolListing {
  tools: McpToolDefinition[];
  rejected: RejectedTool[];
}

/** Follows `nextCursor` to the last page; each page request has `timeoutMs`. */
export async function listMcpTools(client: Client, timeoutMs: number): Promise<McpToolListing> {
  const tools: McpToolDefinition[] = [];
  const rejected: RejectedTool[] = [];
  let cursor: string | undefined;
  do {
    const page = await client.listTools(cursor === undefined ? {} : { cursor }, { timeout: timeoutMs });
    for (const listed of page.tools) {
      try {
        tools.push(toolDefinitionOf(listed));
      } catch (error) {
        rejected.push({ name: String(listed.name), problem: errorMessage(error) });
      }
    }
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  return { tools, rejected };
}
