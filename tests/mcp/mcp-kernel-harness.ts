// A kernel whose tools are an MCP tool source over our test server (tests/fakes/mcp/test-mcp-server.ts), with real
// permission settings and a store that outlives a "restart" (a second source and kernel over the same store).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { ManualClock } from '../../agent/clock.js';
import { Kernel } from '../../agent/kernel.js';
import type { ModelClient } from '../../agent/model/model-client.js';
import { AuditLog } from '../../agent/policy/audit-log.js';
import {
  type PermissionSettingsInput,
  PermissionSettingsSchema,
} from '../../agent/policy/permission-settings.js';
import { withResolvedRoles } from '../../agent/policy/resolve-roles.js';
import { settingsToolPolicy } from '../../agent/policy/settings-tool-policy.js';
import type { Principal } from '../../agent/principal.js';
import { MemoryStore } from '../../agent/store/memory-store.js';
import { ToolRegistry } from '../../agent/tool-registry.js';
import { createLogger } from '../../bot/logger.js';
import { type McpSettings, McpSettingsSchema } from '../../tools/mcp/mcp-settings.js';
import type { McpToolSource } from '../../tools/mcp/mcp-tool-source.js';
import { startMcpTools } from '../../tools/mcp/start-mcp-tools.js';
import { ToolSettingsSchema } from '../../tools/tool-settings-schema.js';
import {
  DEFAULT_TEST_TOOLS,
  readTestCalls,
  type TestCall,
  type TestToolFile,
} from '../fakes/mcp/test-mcp-tools.js';
import { RecordingChatPort } from '../fakes/recording-chat-port.js';
import { runTask, type TestRun } from '../kernel/harness.js';
import { ManualTimers } from '../manual-timers.js';

export const TEST_SERVER = resolve('tests/fakes/mcp/test-mcp-server.ts');

export const MCP_TEST_PERMISSIONS = {
  default_role: 'operator',
  roles: {
    operator: { tools: ['*'], risks: ['read', 'write', 'danger'], approve: [] },
    admin: { tools: ['*'], approve: ['*'], admin: true },
  },
  identities: { 'local:bob': { roles: ['admin'], display_name: 'Bob' } },
} satisfies PermissionSettingsInput;

export const conversation = { platform: 'cli' as const, channelId: 'terminal', threadId: 't1' };

export interface McpBot {
  kernel: Kernel;
  source: McpToolSource;
  logs: string[];
  run(text: string): Promise<TestRun>;
  stop(): Promise<void>;
}

export class McpKernelHarness {
  readonly clock = new ManualClock();
  readonly timers = new ManualTimers();
  readonly store = new MemoryStore(this.clock);
  readonly permissions = PermissionSettingsSchema.parse(MCP_TEST_PERMISSIONS);
  /** What every bot of this harness posted. */
  readonly chat = new RecordingChatPort();
  private readonly directory = mkdtempSync(join(tmpdir(), 'mcp-kernel-'));
  readonly toolFile = join(this.directory, 'tools.json');
  /** Where the test server records every call it receives. */
  readonly callFile = join(this.directory, 'calls.jsonl');
  private readonly bots: McpBot[] = [];
  private threads = 0;

  constructor() {
    this.writeTools(DEFAULT_TEST_TOOLS);
  }

  writeTools(file: TestToolFile): void {
    writeFileSync(this.toolFile, JSON.stringify(file));
  }

  /** Every call the test server received, by its own record. */
  calls(): TestCall[] {
    return readTestCalls(this.callFile);
  }

  /** The test server's settings, with `extra` merged into its `test:` entry. */
  settings(extra: Record<string, unknown> = {}): McpSettings {
    return McpSettingsSchema.parse({
      servers: {
        test: {
          command: [process.execPath, '--import', 'tsx', TEST_SERVER],
          env: ['MCP_TEST_TOOLS', 'MCP_TEST_CALLS'],
          ...extra,
        },
      },
    });
  }

  person(userId = 'alice'): Principal {
    return withResolvedRoles(this.permissions, {
      platform: 'cli',
      userId,
      displayName: userId,
      roles: [],
      groups: [],
    });
  }

  /**
   * A bot start: a new tool source (the servers started, pins checked) and a kernel over it; with a `model`, its
   * react engine runs free text, else only the command engine does.
   */
  async start(
    mcp: McpSettings = this.settings(),
    limits: { toolOutputChars?: number } = {},
    model?: ModelClient,
  ): Promise<McpBot> {
    const logs: string[] = [];
    const logger = createLogger({
      level: 'info',
      destination: { write: (line: string) => void logs.push(line) },
    });
    const source = await startMcpTools(
      { mcp, tools: ToolSettingsSchema.parse({}) },
      {
        store: this.store,
        logger,
        takenNames: [],
        environment: { ...process.env, MCP_TEST_TOOLS: this.toolFile, MCP_TEST_CALLS: this.callFile },
        clock: this.clock,
        timers: this.timers,
      },
    );
    if (!source) throw new Error('no MCP servers configured');
    const kernel = new Kernel({
      store: this.store,
      tools: new ToolRegistry([], [source]),
      policy: (registry) => settingsToolPolicy(this.permissions, registry),
      approvals: { audit: new AuditLog(this.store, { clock: this.clock }), permissions: this.permissions },
      chat: this.chat,
      clock: this.clock,
      ...(model ? { model } : {}),
      limits: { toolTimeoutMs: 20_000, ...limits },
    });
    const bot: McpBot = {
      kernel,
      source,
      logs,
      // A thread per run: a run waiting for approval would queue the next one in its thread.
      run: (text) =>
        runTask(kernel, {
          text,
          principal: this.person(),
          conversation: { ...conversation, threadId: `t${++this.threads}` },
        }),
      async stop() {
        await kernel.shutdown();
        await source.close();
      },
    };
    this.bots.push(bot);
    return bot;
  }

  async close(): Promise<void> {
    for (const bot of this.bots.splice(0)) await bot.stop();
    rmSync(this.directory, { recursive: true, force: true });
  }
}

/** What the tool said to the model in the run's last tool message, parsed. */
export function lastToolMessage(run: TestRun): { content: string; parsed: Record<string, unknown> } {
  const message = [...run.messages].reverse().find((candidate) => candidate.role === 'tool');
  if (message?.role !== 'tool') throw new Error(`run ${run.id} has no tool message`);
  const content = String(message.content);
  let parsed: Record<string, unknown> = {};
  try {
    parsed = JSON.parse(content) as Record<string, unknown>;
  } catch {
    // A capped result is no longer JSON.
  }
  return { content, parsed };
}
