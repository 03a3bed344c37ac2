// Shared set-up for the patrol service tests: a real Kernel with switchable read-only check tools, a real Store
// (memory, a SQLite file, or Redis under a unique prefix), a RecordingChatPort, a ManualClock and a PatrolService.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { ManualClock } from '../../agent/clock.js';
import { Kernel } from '../../agent/kernel.js';
import { AuditLog } from '../../agent/policy/audit-log.js';
import { settingsToolPolicy } from '../../agent/policy/settings-tool-policy.js';
import type { Principal } from '../../agent/principal.js';
import { MemoryStore } from '../../agent/store/memory-store.js';
import { RedisStore } from '../../agent/store/redis-store.js';
import { SqliteStore } from '../../agent/store/sqlite-store.js';
import type { Store } from '../../agent/store/store.js';
import { defineTool, type Tool } from '../../agent/tool.js';
import { type Settings, SettingsSchema } from '../../bot/config/settings-schema.js';
import type { PatrolSlot } from '../../scheduled/patrol-scheduler.js';
import { PatrolService } from '../../scheduled/patrol-service.js';
import type { RecordingChatPort } from '../fakes/recording-chat-port.js';
import { deleteRedisKeys, TEST_REDIS_URL } from '../store/redis-test-keys.js';
import { recordingLogger, T0 } from './patrol-rig.js';

export { T0 } from './patrol-rig.js';
export const MINUTE = 60_000;
export const HOUR = 60 * MINUTE;

/** What a check tool does on its next calls. */
export type Behaviour = 'pass' | 'fail' | 'throw' | 'hang';

/** The check tools' behaviour by target, shared by every kernel of a test, and how often each was called. */
export class CheckSwitch {
  private readonly behaviours = new Map<string, Behaviour>();
  readonly calls: string[] = [];
  set(target: string, behaviour: Behaviour): this {
    this.behaviours.set(target, behaviour);
    return this;
  }
  behaviour(target: string): Behaviour {
    return this.behaviours.get(target) ?? 'pass';
  }
}

/** `probe`: a read-only check that passes, fails, throws or never answers, as its switch says. */
export function probeTool(checks: CheckSwitch): Tool {
  return defineTool({
    name: 'probe',
    description: 'Probe a target. Use when a patrol checks something. Do not use otherwise.',
    input: z.object({ target: z.string().describe('What to probe') }),
    risk: 'read',
    execute: async (_context, input) => {
      checks.calls.push(input.target);
      switch (checks.behaviour(input.target)) {
        case 'pass':
          return { ok: true, summary: `${input.target} answered 200` };
        case 'fail':
          return { ok: false, summary: `${input.target} answered 503 (expected 200)` };
        case 'throw':
          throw new Error(`connection refused by ${input.target}`);
        case 'hang':
          return new Promise(() => {});
      }
    },
  });
}

/** Settings with one patrol `web` (check `api`, probing target `api`) and roles that may or may not steer patrols. */
export function patrolSettings(patrol: Record<string, unknown> = {}): Settings {
  return SettingsSchema.parse({
    permissions: {
      roles: {
        viewer: { tools: ['*'], risks: ['read'] },
        operator: { tools: ['*'], risks: ['read'], patrols: ['run', 'ack', 'snooze', 'pause'] },
      },
      identities: { 'local:olive': { roles: ['operator'], display_name: 'Olive' } },
    },
    limits: { patrol_history: '7d' },
    patrols: {
      web: {
        schedule: '*/5 * * * *',
        channel: 'playground:ops',
        checks: [{ id: 'api', tool: 'probe', args: { target: 'api' } }],
        ...patrol,
      },
    },
  });
}

/** A person on the playground: `olive` is an operator, anyone else a viewer. */
export function person(userId: string): Principal {
  return { platform: 'playground', userId, displayName: userId, roles: [], groups: [] };
}

export type Backend = 'memory' | 'sqlite' | 'redis';

/** Opens Store connections for one test; every connection to one backend sees the same data. */
export class StoreBench {
  readonly clock = new ManualClock(T0);
  private readonly dir = mkdtempSync(join(tmpdir(), 'opsbot-patrol-service-'));
  private readonly prefix = `opsbot-test:patrol-service:${process.pid}:${randomUUID().slice(0, 8)}:`;
  private readonly open: Store[] = [];
  private memory: MemoryStore | undefined;

  constructor(readonly backend: Backend) {}

  get sqlitePath(): string {
    return join(this.dir, 'opsbot.sqlite');
  }

  /** A new connection, as a new process would open it (the memory store is one and the same). */
  async connect(): Promise<Store> {
    let store: Store;
    if (this.backend === 'memory') {
      this.memory ??= new MemoryStore(this.clock);
      return this.memory;
    }
    if (this.backend === 'sqlite') store = new SqliteStore(this.sqlitePath, { clock: this.clock });
    else store = await RedisStore.connect(TEST_REDIS_URL, { prefix: this.prefix });
    this.open.push(store);
    return store;
  }

  async close(): Promise<void> {
    for (const store of this.open.splice(0)) await store.close().catch(() => {});
    await this.memory?.close();
    if (this.backend === 'redis') await deleteRedisKeys(this.prefix);
    rmSync(this.dir, { recursive: true, force: true });
  }
}

export interface Replica {
  service: PatrolService;
  kernel: Kernel;
  store: Store;
  audit: AuditLog;
  /** Stops the service and the kernel; the store stays open for the bench to close. */
  stop(): Promise<void>;
}

export interface ReplicaOptions {
  store: Store;
  clock: ManualClock;
  chat: RecordingChatPort;
  checks: CheckSwitch;
  settings?: Settings;
  owner?: string;
  /** Extra tools beside `probe`. */
  tools?: Tool[];
}

/** One process's patrols: a real Kernel on the store with the settings' policy, and a prepared PatrolService. */
export function newReplica(options: ReplicaOptions): Replica {
  const settings = options.settings ?? patrolSettings();
  const kernel = new Kernel({
    store: options.store,
    tools: [probeTool(options.checks), ...(options.tools ?? [])],
    policy: (registry) => settingsToolPolicy(settings.permissions, registry),
    chat: options.chat,
    clock: options.clock,
    runLeaseMs: 5 * MINUTE,
    limits: { toolTimeoutMs: 200 },
  });
  const audit = new AuditLog(options.store, { clock: options.clock });
  const service = new PatrolService({
    patrols: settings.patrols,
    selfUrl: () => 'http://127.0.0.1:3000',
    kernel,
    store: options.store,
    chat: options.chat,
    platformRunning: () => true,
    permissions: settings.permissions,
    audit,
    clock: options.clock,
    logger: recordingLogger([]),
    keepHistoryMs: settings.limits.patrol_history,
    owner: options.owner ?? 'replica-0',
  });
  service.prepare();
  return {
    service,
    kernel,
    store: options.store,
    audit,
    async stop() {
      await service.stop();
      await kernel.shutdown();
    },
  };
}

export const slot = (at: number, extra: Partial<PatrolSlot> = {}): PatrolSlot => ({
  at,
  late: false,
  manual: false,
  ...extra,
});

/** Patrol reports the chat received, new ones and thread replies alike, as first posted. */
export function reportPosts(chat: RecordingChatPort) {
  return chat.posts.flatMap((post) =>
    post.message.kind === 'patrol_report' ? [{ ...post, report: post.message }] : [],
  );
}
