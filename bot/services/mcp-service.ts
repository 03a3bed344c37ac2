// The MCP servers as a /readyz part (`mcp`): which are down since when and why, and which tools are held back.
// Stopping it closes their connections (stdio servers exit); it stops after the kernel, so calls in flight end.
import type { McpToolSource } from '../../tools/mcp/mcp-tool-source.js';
import type { Service } from './service.js';

export function mcpService(source: McpToolSource): Service {
  return {
    name: 'mcp',
    async start() {},
    stop: () => source.close(),
    async readiness() {
      const status = source.status();
      const down = status.filter((server) => !server.up).map((server) => `${server.server} ${server.state}`);
      const held = status.flatMap((server) => server.heldBack.map((tool) => tool.name));
      const parts = [
        down.length > 0 ? down.join('; ') : `${status.length} up`,
        ...(held.length > 0 ? [`held back: ${held.join(', ')}`] : []),
      ];
      // Advisory: a server elsewhere being down takes its tools away, not the bot's ability to answer.
      return { ok: down.length === 0, detail: parts.join('; '), advisory: true };
    },
  };
}
