// Which of a server's tools are held back now, and the words their calls are refused with: pure, so a listing
// (at start, on tools/list_changed, after a restart) and a pin refresh all decide alike.
import { type McpServerPins, pinStates } from './mcp-pins.js';
import type { McpToolDefinition } from './mcp-tool-definition.js';
import { mcpRegistryName } from './mcp-tool-names.js';

/**
 * By the tool's own name, for each of `known` (the tools opsbot made for the server): held back when the server
 * no longer lists it, when it lost its name (`unnamed`, with why), and when its listed definition differs from its
 * pin (changed) or it has none (new). The tool offered is made from the listed definition, so a trusted pin is
 * always the definition the model sees.
 */
export function heldBackTools(
  server: string,
  known: Iterable<string>,
  listed: readonly McpToolDefinition[],
  pins: McpServerPins,
  unnamed: ReadonlyMap<string, string> = new Map(),
): Map<string, string> {
  const held = new Map<string, string>();
  // Never first sight here: that was recorded before the listing was checked.
  const states = new Map(
    pinStates(server, listed, pins.size === 0 ? PLACEHOLDER : pins, {
      trustNewTools: false,
      now: 0,
    }).states.map((state) => [state.tool, state]),
  );
  for (const tool of known) {
    const state = states.get(tool);
    const lostName = unnamed.get(tool);
    if (state === undefined) {
      held.set(tool, `${mcpRegistryName(server, tool)} is no longer listed by MCP server ${server}`);
    } else if (lostName !== undefined) {
      held.set(tool, lostName);
    } else if (state.state !== 'trusted') {
      held.set(tool, state.refusal);
    }
  }
  return held;
}

/** Pins that trust nothing: a server whose pins are gone is not seen for the first time again behind its back. */
const PLACEHOLDER: McpServerPins = new Map([
  [
    '\0none',
    {
      hash: '0'.repeat(64),
      definition: { name: '\0none', inputSchema: {} },
      trustedAt: 0,
      trustedBy: 'nobody',
    },
  ],
]);
