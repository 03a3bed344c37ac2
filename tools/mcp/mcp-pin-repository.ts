// MCP pins in the Store: one value per server holding its tools' pins, read back through zod, so a pin that does
// not parse stops the server's tools rather than letting them be trusted afresh. Stored as a list, not an object
// by tool name: a record would drop a tool a server names `__proto__`.
import { z } from 'zod';
import type { Clock } from '../../agent/clock.js';
import type { Store } from '../../agent/store/store.js';
import { storeKeys } from '../../agent/store/store-keys.js';
import {
  FIRST_SIGHT,
  type McpServerPins,
  type McpToolDefinition,
  type McpToolPin,
  McpToolPinSchema,
  newPin,
} from './mcp-pins.js';

const StoredServerPinsSchema = z.object({
  version: z.literal(1),
  pins: z.array(McpToolPinSchema),
});
type StoredServerPins = z.infer<typeof StoredServerPinsSchema>;

export class McpPinRepository {
  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
  ) {}

  /** The server's pins by tool; empty when it was never seen. Throws when what is stored does not parse. */
  async find(server: string): Promise<McpServerPins> {
    const stored = await this.store.get<unknown>(storeKeys.mcpPins(server));
    if (stored === undefined) return new Map();
    const parsed = StoredServerPinsSchema.safeParse(stored);
    if (!parsed.success) {
      throw new Error(
        `the pins of MCP server ${server} in the store (${storeKeys.mcpPins(server)}) do not parse: ${z.prettifyError(parsed.error)}`,
      );
    }
    return new Map(parsed.data.pins.map((pin) => [pin.definition.name, pin]));
  }

  /**
   * Writes pins (from `pinStates`' `toRecord`) beside those already stored. A tool already pinned keeps its pin:
   * a second replica seeing the server for the first time at the same moment must not overwrite a trust.
   */
  async record(server: string, pins: McpServerPins): Promise<void> {
    if (pins.size === 0) return;
    const current = await this.find(server);
    const added = [...pins].filter(([tool]) => !current.has(tool));
    if (added.length === 0) return;
    await this.save(server, new Map([...current, ...added]));
  }

  /** The first sight of a server: all its listed tools trusted, by `first sight`, when it has no pins yet. */
  async recordFirstSight(server: string, listed: readonly McpToolDefinition[]): Promise<void> {
    const now = this.clock.now();
    await this.record(server, new Map(listed.map((tool) => [tool.name, newPin(tool, FIRST_SIGHT, now)])));
  }

  /**
   * Accepts the listed definitions as they are now: of `tool` only, or of every listed tool. Returns the tools
   * whose pin was written (those already trusted as they are are left alone); throws when `tool` is not listed.
   */
  async trust(
    server: string,
    listed: readonly McpToolDefinition[],
    by: string,
    tool?: string,
  ): Promise<string[]> {
    const chosen = tool === undefined ? listed : listed.filter((definition) => definition.name === tool);
    if (tool !== undefined && chosen.length === 0) {
      throw new Error(`MCP server ${server} lists no tool ${JSON.stringify(tool)}`);
    }
    const now = this.clock.now();
    const current = await this.find(server);
    const written = new Map<string, McpToolPin>();
    for (const definition of chosen) {
      const pin = newPin(definition, by, now);
      if (current.get(definition.name)?.hash === pin.hash) continue;
      written.set(definition.name, pin);
    }
    if (written.size > 0) await this.save(server, new Map([...current, ...written]));
    return [...written.keys()];
  }

  private async save(server: string, pins: McpServerPins): Promise<void> {
    const value: StoredServerPins = { version: 1, pins: [...pins.values()] };
    await this.store.set(storeKeys.mcpPins(server), value);
  }
}
