// Which of a server's registered tools are held back now, and the words their calls are refused with: pure, so
// the start-up, a tools/list_changed notification and a pin refresh all decide alike.
import { definitionHash, type McpServerPins, pinStates } from './mcp-pins.js';
import type { McpToolDefinition } from './mcp-tool-definition.js';
import { mcpRegistryName } from './mcp-tool-names.js';

/**
 * By the tool's own name: held back when the server no longer lists it, when its listed definition differs from
 * its pin (changed) or it has none (new), or when it was trusted anew while opsbot ran: the model would still be
 * offered the definition it was registered with, so it stays off until a restart offers the new one.
 */
export function heldBackTools(
  server: string,
  registered: ReadonlyMap<string, string>,
  listed: readonly McpToolDefinition[],
  pins: McpServerPins,
): Map<string, string> {
  const held = new Map<string, string>();
  const byName = new Map(listed.map((definition) => [definition.name, definition]));
  // Never first sight here: that was recorded before any tool was registered.
  const states = new Map(
    pinStates(server, listed, pins.size === 0 ? PLACEHOLDER : pins, {
      trustNewTools: false,
      now: 0,
    }).states.map((state) => [state.tool, state]),
  );
  for (const [tool, registeredHash] of registered) {
    const definition = byName.get(tool);
    const state = states.get(tool);
    if (definition === undefined || state === undefined) {
      held.set(tool, `${mcpRegistryName(server, tool)} is no longer listed by MCP server ${server}`);
    } else if (state.state !== 'trusted') {
      held.set(tool, state.refusal);
    } else if (definitionHash(definition) !== registeredHash) {
      held.set(
        tool,
        `${mcpRegistryName(server, tool)} was trusted with a new definition while opsbot ran; it is offered again once opsbot restarts`,
      );
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
