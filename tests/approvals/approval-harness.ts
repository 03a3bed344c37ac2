// Kernels with real permission settings and an audit log, over SQLite, Redis or memory.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ManualClock } from '../../agent/clock.js';
import { Kernel } from '../../agent/kernel.js';
import { createOpenAIModelClient } from '../../agent/model/model-client.js';
import { AuditLog } from '../../agent/policy/audit-log.js';
import {
  type PermissionSettingsInput,
  PermissionSettingsSchema,
} from '../../agent/policy/permission-settings.js';
import { withResolvedRoles } from '../../agent/policy/resolve-roles.js';
import { settingsToolPolicy } from '../../agent/policy/settings-tool-policy.js';
import type { Principal } from '../../agent/principal.js';
import { MemoryStore } from '../../agent/store/memory-store.js';
import { RedisStore } from '../../agent/store/redis-store.js';
import { SqliteStore } from '../../agent/store/sqlite-store.js';
import type { Store } from '../../agent/store/store.js';
import type { Tool } from '../../agent/tool.js';
import type { TraceSink } from '../../agent/trace.js';
import { type FakeOpenAIServer, startFakeOpenAIServer } from '../fakes/openai-server.js';
import { RecordingChatPort } from '../fakes/recording-chat-port.js';
import { ToolProbe, testTools } from '../kernel/harness.js';
import { deleteRedisKeys, TEST_REDIS_URL } from '../store/redis-test-keys.js';

export const permissions = {
  default_role: 'viewer',
  roles: {
    operator: { tools: ['*'], risks: ['read', 'write', 'danger'], approve: ['write_*'] },
    admin: { tools: ['*'], approve: ['*'], admin: true },
    nobody_approves: { tools: ['*'], approve: [] },
  },
  identities: {
    'local:alice': { roles: ['operator'], display_name: 'Alice' },
    'local:bob': { roles: ['admin'], display_name: 'Bob' },
    'local:dave': { roles: ['admin'], display_name: 'Dave' },
    'local:carol': { roles: ['viewer'], display_name: 'Carol' },
  },
} satisfies PermissionSettingsInput;

export type Backend = 'memory' | 'sqlite' | 'redis';

export interface ApprovalHarness {
  fake: FakeOpenAIServer;
  chat: RecordingChatPort;
  probe: ToolProbe;
  clock: ManualClock;
  stores: Store[];
  kernel: Kernel;
  /** Another kernel over a new connection to the same backend: a second replica, or a restarted process. */
  replica(): Promise<Kernel>;
  person(name: string): Principal;
  audit(): AuditLog;
  /** Where another process finds the same store: a SQLite file's URL, or Redis with the harness's key prefix. */
  location: { url: string; prefix: string };
  close(): Promise<void>;
}

export async function createApprovalHarness(
  backend: Backend,
  overrides: Partial<PermissionSettingsInput> = {},
  extra: {
    /** Tools beside the shared test tools, such as one that fails. */
    tools?: Tool[];
    trace?: TraceSink;
    /** False: no model is configured, so only typed commands run (and no reviewer looks at a call). */
    model?: false;
  } = {},
): Promise<ApprovalHarness> {
  const fake = await startFakeOpenAIServer();
  const chat = new RecordingChatPort();
  const probe = new ToolProbe();
  const clock = new ManualClock();
  const settings = PermissionSettingsSchema.parse({ ...permissions, ...overrides });
  const dir = mkdtempSync(join(tmpdir(), 'opsbot-approvals-'));
  const prefix = `opsbot-test-${randomBytes(4).toString('hex')}:`;
  const memory = new MemoryStore(clock);
  const stores: Store[] = [];
  const openStore = async (): Promise<Store> => {
    const store =
      backend === 'sqlite'
        ? new SqliteStore(join(dir, 'opsbot.sqlite'), { clock })
        : backend === 'redis'
          ? await RedisStore.connect(TEST_REDIS_URL, { prefix })
          : memory;
    stores.push(store);
    return store;
  };
  const build = async () => {
    const store = await openStore();
    return new Kernel({
      store,
      tools: [...testTools(probe), ...(extra.tools ?? [])],
      ...(extra.trace ? { trace: extra.trace } : {}),
      ...(extra.model === false
        ? {}
        : {
            model: createOpenAIModelClient({
              baseURL: fake.baseURL,
              apiKey: 'sk-test',
              model: 'fake',
              timeoutMs: 2000,
              maxRetries: 0,
            }),
          }),
      policy: (registry) => settingsToolPolicy(settings, registry),
      approvals: {
        audit: new AuditLog(store, { clock }),
        permissions: settings,
      },
      chat,
      clock,
      limits: { toolTimeoutMs: 500 },
    });
  };
  const kernel = await build();
  return {
    fake,
    chat,
    probe,
    clock,
    stores,
    kernel,
    replica: build,
    person: (name) =>
      withResolvedRoles(settings, {
        platform: 'playground',
        userId: name,
        displayName: name[0]!.toUpperCase() + name.slice(1),
        roles: [],
        groups: [],
      }),
    audit: () => new AuditLog(stores[0]!, { clock }),
    location: {
      url: backend === 'redis' ? TEST_REDIS_URL : `sqlite://${join(dir, 'opsbot.sqlite')}`,
      prefix,
    },
    async close() {
      await fake.close();
      for (const store of stores) await store.close();
      if (backend === 'redis') await deleteRedisKeys(prefix);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
