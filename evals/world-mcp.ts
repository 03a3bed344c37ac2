// The world's MCP servers: for each, the test server over stdio (started by opsbot itself, from the settings
// made here), the file its tools are read from and the file it records every call it receives in.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readTestCalls } from '../tests/fakes/mcp/test-mcp-tools.js';
import type { McpWorldServer } from './mcp-schema.js';

const TEST_SERVER = fileURLToPath(new URL('../tests/fakes/mcp/test-mcp-server.ts', import.meta.url));

/** A call one of the world's MCP servers received, as the server itself wrote it down. */
export interface McpWorldCall {
  server: string;
  tool: string;
  args: Record<string, unknown>;
}

export interface RunningMcpWorld {
  /** `mcp.servers` for opsbot's settings: each server as a command with its two files in its environment. */
  servers: Record<string, unknown>;
  /** Whether a server has `trusted` tools, which must be pinned before opsbot starts. */
  hasTrusted: boolean;
  /** Every server lists its `trusted` tools (those without, their own), for the pins opsbot first sees. */
  listTrusted(): void;
  /** Every server lists the tools the scenario gives it. */
  listCurrent(): void;
  /** Every call the servers received, in order per server. */
  calls(): McpWorldCall[];
  close(): void;
}

export function startMcpWorld(world: Record<string, McpWorldServer>): RunningMcpWorld {
  const names = Object.keys(world);
  const directory = names.length > 0 ? mkdtempSync(join(tmpdir(), 'opsbot-eval-mcp-')) : undefined;
  const files = (name: string) => ({
    tools: join(directory ?? '', `${name}.tools.json`),
    calls: join(directory ?? '', `${name}.calls.jsonl`),
  });
  const write = (which: 'trusted' | 'tools') => {
    for (const [name, server] of Object.entries(world)) {
      const tools = which === 'trusted' ? (server.trusted ?? server.tools) : server.tools;
      writeFileSync(files(name).tools, JSON.stringify({ tools }));
    }
  };
  write('tools');
  const servers = Object.fromEntries(
    names.map((name) => [
      name,
      {
        command: [process.execPath, '--import', 'tsx', TEST_SERVER],
        env: [`MCP_TEST_TOOLS=${files(name).tools}`, `MCP_TEST_CALLS=${files(name).calls}`],
      },
    ]),
  );
  return {
    servers,
    hasTrusted: Object.values(world).some((server) => server.trusted !== undefined),
    listTrusted: () => write('trusted'),
    listCurrent: () => write('tools'),
    calls: () =>
      names.flatMap((server) => readTestCalls(files(server).calls).map((call) => ({ server, ...call }))),
    close() {
      if (directory) rmSync(directory, { recursive: true, force: true });
    },
  };
}
