// An MCP tool trusted before the scenario's run: the world's servers list their `trusted` tools to a first start
// of the real MCP tool source, which pins them in the store as opsbot does at a server's first sight; then they
// list the scenario's tools, and the opsbot of the run finds them changed (or new) against those pins.
import { silentLogger } from '../agent/logger.js';
import type { Store } from '../agent/store/store.js';
import type { Settings } from '../bot/config/settings-schema.js';
import { startMcpTools } from '../tools/mcp/start-mcp-tools.js';
import type { RunningMcpWorld } from './world-mcp.js';

export async function pinTrustedTools(
  settings: Settings,
  world: RunningMcpWorld,
  store: Store,
): Promise<void> {
  world.listTrusted();
  try {
    const earlier = await startMcpTools(settings, { store, logger: silentLogger, takenNames: [] });
    await earlier?.close();
  } finally {
    world.listCurrent();
  }
}
