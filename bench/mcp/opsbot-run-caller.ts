// A whole opsbot run per call: `test__echo text=…` through the Kernel's command engine, as a person typing it in
// chat would start it, on a MemoryStore or a fresh SQLite file. Each call is a run of its own thread: planned, its
// call checked by the policy gate (settings permissions, the operator role), run through McpToolSource, its
// result redacted, capped and saved, the answer posted (to a chat that drops it).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { nullChatPort } from '../../agent/chat-port.js';
import { Kernel } from '../../agent/kernel.js';
import { silentLogger } from '../../agent/logger.js';
import { AuditLog } from '../../agent/policy/audit-log.js';
import { PermissionSettingsSchema } from '../../agent/policy/permission-settings.js';
import { withResolvedRoles } from '../../agent/policy/resolve-roles.js';
import { settingsToolPolicy } from '../../agent/policy/settings-tool-policy.js';
import { MemoryStore } from '../../agent/store/memory-store.js';
import { SqliteStore } from '../../agent/store/sqlite-store.js';
import type { Store } from '../../agent/store/store.js';
import { ToolRegistry } from '../../agent/tool-registry.js';
import { McpSettingsSchema } from '../../tools/mcp/mcp-settings.js';
import { startMcpTools } from '../../tools/mcp/start-mcp-tools.js';
import { ToolSettingsSchema } from '../../tools/tool-settings-schema.js';
import { BrokenRunError } from '../runners/runner.js';
import { type McpCaller, TEST_SERVER_COMMAND } from './mcp-caller.js';

const PERMISSIONS = PermissionSettingsSchema.parse({
  default_role: 'operator',
  roles: { operator: { tools: ['*'], risks: ['read'] } },
});
const PERSON = withResolvedRoles(PERMISSIONS, {
  platform: 'cli',
  userId: 'bench',
  displayName: 'Bench',
  roles: [],
  groups: [],
});

/** `concurrency`: runs the kernel steps at once (limits.worker_concurrency), at least the bench's calls in flight. */
export async function startOpsbotRunCaller(
  storeKind: 'memory' | 'sqlite',
  concurrency: number,
): Promise<McpCaller> {
  const dir = mkdtempSync(join(tmpdir(), 'opsbot-mcp-bench-'));
  const store: Store =
    storeKind === 'memory' ? new MemoryStore() : new SqliteStore(join(dir, 'opsbot.sqlite'));
  const source = await startMcpTools(
    {
      mcp: McpSettingsSchema.parse({ servers: { test: { command: TEST_SERVER_COMMAND } } }),
      tools: ToolSettingsSchema.parse({}),
    },
    { store, logger: silentLogger, takenNames: [] },
  );
  if (!source) throw new BrokenRunError('opsbot-run: no MCP tool source');
  const kernel = new Kernel({
    store,
    tools: new ToolRegistry([], [source]),
    policy: (registry) => settingsToolPolicy(PERMISSIONS, registry),
    approvals: { audit: new AuditLog(store), permissions: PERMISSIONS },
    chat: nullChatPort,
    concurrency,
  });
  let runs = 0;
  return {
    async call(text) {
      const runId = await kernel.start({
        text: `test__echo text=${text}`,
        principal: PERSON,
        conversation: { platform: 'cli', channelId: 'bench', threadId: `mcp-${++runs}` },
      });
      const run = await kernel.settled(runId);
      const echoed = run.events.some(
        (event) => event.type === 'tool_result' && event.ok && event.tool === 'test__echo',
      );
      if (run.status !== 'finished' || !echoed || !run.answer.includes(text)) {
        const error = run.status === 'failed' ? `: ${run.error.code} ${run.error.message}` : '';
        throw new BrokenRunError(
          `opsbot-run-${storeKind}: run ${run.id} of ${text} ended ${run.status}${error}; answer ${JSON.stringify(run.status === 'finished' ? run.answer : undefined)}`,
        );
      }
    },
    async close() {
      await kernel.shutdown();
      await source.close();
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
