// Pinned MCP tool definitions: what an admin (or the first sight of a server) accepted, so that a tool whose
// description, input schema or annotations change afterwards is held back ("rug pull") until someone looks.
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { stableJson } from '../../agent/stable-json.js';
import { mcpRegistryName } from './mcp-tool-names.js';

/** The part of a listed tool that a pin covers: what the model reads, and what sets its default risk. */
export const McpToolDefinitionSchema = z.object({
  name: z.string(),
  description: z.string().optional(),
  inputSchema: z.record(z.string(), z.unknown()),
  annotations: z.record(z.string(), z.unknown()).optional(),
});
export type McpToolDefinition = z.infer<typeof McpToolDefinitionSchema>;

/** Who trusted a pin: a person's key, or the first sight of the server, or its `trust_new_tools`. */
export const FIRST_SIGHT = 'first sight';
export const TRUST_NEW_TOOLS = 'trust_new_tools';

export const McpToolPinSchema = z.object({
  /** SHA-256 (hex) of the definition's stable JSON. */
  hash: z.string().regex(/^[0-9a-f]{64}$/),
  /** The definition itself, so `opsbot mcp diff` can show what changed. */
  definition: McpToolDefinitionSchema,
  /** Epoch ms. */
  trustedAt: z.number(),
  trustedBy: z.string().min(1),
});
export type McpToolPin = z.infer<typeof McpToolPinSchema>;

/** A server's pins by the tool's own name: a Map, as a server may name a tool `__proto__`. */
export type McpServerPins = ReadonlyMap<string, McpToolPin>;

export type McpPinField = 'description' | 'inputSchema' | 'annotations';
const FIELDS: readonly McpPinField[] = ['description', 'inputSchema', 'annotations'];
const FIELD_WORDS: Record<McpPinField, string> = {
  description: 'description',
  inputSchema: 'input schema',
  annotations: 'annotations',
};

/** Only the pinned fields, so a server's extra keys (`title`, `_meta`, `outputSchema`) neither pin nor change it. */
export function pinnedDefinition(tool: McpToolDefinition): McpToolDefinition {
  const { name, description, inputSchema, annotations } = McpToolDefinitionSchema.parse(tool);
  return { name, description, inputSchema, annotations };
}

export function definitionHash(tool: McpToolDefinition): string {
  return createHash('sha256')
    .update(stableJson(pinnedDefinition(tool)))
    .digest('hex');
}

export function newPin(tool: McpToolDefinition, trustedBy: string, trustedAt: number): McpToolPin {
  const definition = pinnedDefinition(tool);
  return { hash: definitionHash(definition), definition, trustedAt, trustedBy };
}

/** `refusal` is what a call of a held-back tool is refused with, and what the start-up log says of it. */
export type McpPinState =
  | { tool: string; state: 'trusted' }
  | { tool: string; state: 'changed'; fields: McpPinField[]; refusal: string }
  | { tool: string; state: 'new'; refusal: string };

export interface McpPinCheck {
  states: McpPinState[];
  /** Pins to write now: every tool at a server's first sight, and new tools under `trust_new_tools`. */
  toRecord: Map<string, McpToolPin>;
}

/**
 * Each listed tool against the server's pins. A server with no pins at all is seen for the first time: all its
 * tools are trusted and recorded. A changed tool is never trusted here, `trust_new_tools` or not.
 */
export function pinStates(
  server: string,
  listed: readonly McpToolDefinition[],
  stored: McpServerPins,
  options: { trustNewTools: boolean; now: number },
): McpPinCheck {
  const firstSight = stored.size === 0;
  const states: McpPinState[] = [];
  const toRecord = new Map<string, McpToolPin>();
  for (const tool of listed) {
    const pin = stored.get(tool.name);
    if (pin === undefined) {
      if (firstSight || options.trustNewTools) {
        toRecord.set(tool.name, newPin(tool, firstSight ? FIRST_SIGHT : TRUST_NEW_TOOLS, options.now));
        states.push({ tool: tool.name, state: 'trusted' });
      } else {
        states.push({ tool: tool.name, state: 'new', refusal: newToolRefusal(server, tool.name) });
      }
    } else if (pin.hash === definitionHash(tool)) {
      states.push({ tool: tool.name, state: 'trusted' });
    } else {
      const fields = changedFields(pin.definition, tool);
      states.push({
        tool: tool.name,
        state: 'changed',
        fields,
        refusal: changedToolRefusal(server, tool.name, fields),
      });
    }
  }
  return { states, toRecord };
}

function changedFields(old: McpToolDefinition, current: McpToolDefinition): McpPinField[] {
  const before = pinnedDefinition(old);
  const after = pinnedDefinition(current);
  return FIELDS.filter((field) => stableJson(before[field]) !== stableJson(after[field]));
}

/** What a call of a changed tool is refused with. */
export function changedToolRefusal(server: string, tool: string, fields: readonly McpPinField[]): string {
  const what = fields.length > 0 ? ` (${fields.map((field) => FIELD_WORDS[field]).join(', ')})` : '';
  return `${mcpRegistryName(server, tool)} changed since it was trusted${what}; an admin must review it: opsbot mcp diff ${server}`;
}

/** What a call of a tool that is new on a known server is refused with. */
export function newToolRefusal(server: string, tool: string): string {
  return `${mcpRegistryName(server, tool)} is new on ${server} and not yet trusted; an admin must review it: opsbot mcp diff ${server}`;
}

export interface McpFieldDiff {
  field: McpPinField;
  /** The field in words, for the CLI's heading. */
  label: string;
  /** As trusted; undefined when the tool or the field was absent. */
  old: unknown;
  /** As listed now; undefined when the tool or the field is absent. */
  new: unknown;
}

/**
 * Old and new, side by side, of each field that differs between the trusted definition and the listed one; for
 * a tool not trusted before (`stored` undefined), every field it has.
 */
export function pinDiff(
  stored: McpToolDefinition | undefined,
  current: McpToolDefinition | undefined,
): McpFieldDiff[] {
  const before: Partial<McpToolDefinition> = stored ? pinnedDefinition(stored) : {};
  const after: Partial<McpToolDefinition> = current ? pinnedDefinition(current) : {};
  return FIELDS.filter((field) => stableJson(before[field]) !== stableJson(after[field])).map((field) => ({
    field,
    label: FIELD_WORDS[field],
    old: before[field],
    new: after[field],
  }));
}
