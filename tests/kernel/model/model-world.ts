// The world one model-test sequence runs in: two kernels (two processes) over one store, a shared ManualClock,
// the scripted model, recording tools, and what it takes to crash a process and start it again.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ChatPort } from '../../../agent/chat-port.js';
import { ManualClock } from '../../../agent/clock.js';
import type { Conversation } from '../../../agent/conversation.js';
import type { ExpirySweep } from '../../../agent/expiry-sweep.js';
import { Kernel } from '../../../agent/kernel.js';
import type { Logger } from '../../../agent/logger.js';
import { createOpenAIModelClient } from '../../../agent/model/model-client.js';
import { AuditLog } from '../../../agent/policy/audit-log.js';
import {
  type PermissionSettings,
  PermissionSettingsSchema,
} from '../../../agent/policy/permission-settings.js';
import { withResolvedRoles } from '../../../agent/policy/resolve-roles.js';
import { settingsToolPolicy } from '../../../agent/policy/settings-tool-policy.js';
import type { Principal } from '../../../agent/principal.js';
import { RedisStore } from '../../../agent/store/redis-store.js';
import { SqliteStore } from '../../../agent/store/sqlite-store.js';
import type { Store } from '../../../agent/store/store.js';
import { storeKeys } from '../../../agent/store/store-keys.js';
import { permissions } from '../../approvals/approval-harness.js';
import type { FakeOpenAIServer } from '../../fakes/openai-server.js';
import { RecordingChatPort } from '../../fakes/recording-chat-port.js';
import { deleteRedisKeys, TEST_REDIS_URL } from '../../store/redis-test-keys.js';
import { ProcessLife, storeOf } from './process-life.js';
import { ExecutionLog, recordingTools } from './recording-tools.js';

export type Backend = 'sqlite' | 'redis';
export const REDIS_URL = TEST_REDIS_URL;

export const PEOPLE = ['alice', 'bob', 'carol', 'dave'] as const;
export type Person = (typeof PEOPLE)[number];
export const THREADS = 2;

export const LEASE_MS = 30_000;
export const QUESTION_TTL_MS = 10 * 60_000;
export const APPROVAL_TTL_MS = 15 * 60_000;
/** Longer than any sequence's clock moves, so a thread lock never lapses by time and hides a leak. */
const MAX_WALL_TIME_MS = 24 * 3_600_000;

export interface Replica {
  kernel: Kernel;
  life: ProcessLife;
  sweep: ExpirySweep;
}

export class ModelWorld {
  readonly clock = new ManualClock();
  readonly chat = new RecordingChatPort();
  readonly executions = new ExecutionLog();
  /** Every run id a kernel made, in order; a process may have died before saving one. */
  readonly runIds: string[] = [];
  /** Errors the kernels logged, and commands that failed with something other than a caller's mistake. */
  readonly problems: string[] = [];
  /**
   * Runs a process died in the middle of: holding their lease, or while starting them. Their messages may be
   * duplicated or superseded (messages are posted before the state they describe is saved), so the checks of
   * what the thread shows leave them out; every check of their state still applies.
   */
  readonly caughtByCrash = new Set<string>();
  /** What happened, command by command, for the failure message. */
  readonly story: string[] = [];
  readonly settings: PermissionSettings;
  readonly replicas: Replica[] = [];
  /** A store connection of the test's own, outside any process, for the checks. */
  observer!: Store;
  private readonly connections: Store[] = [];
  private readonly directory = mkdtempSync(join(tmpdir(), 'opsbot-model-'));
  private readonly prefix = `opsbot-test:model:${randomBytes(4).toString('hex')}:`;
  private processes = 0;
  private tasks = 0;

  constructor(
    readonly backend: Backend,
    private readonly fake: FakeOpenAIServer,
    onDenial: 'continue' | 'stop',
  ) {
    this.settings = PermissionSettingsSchema.parse({
      ...permissions,
      approval_ttl: APPROVAL_TTL_MS,
      on_denial: onDenial,
    });
  }

  static async create(
    backend: Backend,
    fake: FakeOpenAIServer,
    onDenial: 'continue' | 'stop',
  ): Promise<ModelWorld> {
    const world = new ModelWorld(backend, fake, onDenial);
    world.observer = await world.connect();
    for (let index = 0; index < 2; index++) world.replicas.push(await world.startProcess());
    return world;
  }

  nextTask(): number {
    return ++this.tasks;
  }

  person(name: Person): Principal {
    return withResolvedRoles(this.settings, {
      platform: 'playground',
      userId: name,
      displayName: name[0]!.toUpperCase() + name.slice(1),
      roles: [],
      groups: [],
    });
  }

  conversation(thread: number): Conversation {
    return { platform: 'playground', channelId: 'ops', threadId: `th${thread}`, channelName: 'ops' };
  }

  /** Waits until neither live process has work, and starts again any process that died meanwhile. */
  async quiesce(): Promise<void> {
    await Promise.all(
      this.replicas.map((replica) => Promise.race([replica.kernel.idle(), replica.life.died])),
    );
    for (const [index, replica] of this.replicas.entries()) {
      if (!replica.life.dead) continue;
      this.executions.epoch += 1;
      // The live processes hold no lease now: every lease held is the dead one's, on runs it was stepping.
      const held: string[] = [];
      for (const runId of this.runIds) {
        if ((await this.observer.holder(storeKeys.runLease(runId))) !== undefined) held.push(runId);
      }
      for (const runId of held) this.caughtByCrash.add(runId);
      const restarted = await this.startProcess();
      this.replicas[index] = restarted;
      const holding = held.length > 0 ? ` holding ${held.join(', ')}` : '';
      this.story.push(`  ${replica.life.name} died${holding}; ${restarted.life.name} starts`);
    }
  }

  /**
   * Time passes. A dead process's leases and list locks lapse after their TTL: the injected clock does that for
   * SQLite, and Redis keeps its own time, so there the test releases what only a dead process can hold (the
   * live ones hold nothing between commands).
   */
  async advance(ms: number): Promise<void> {
    this.clock.advance(ms);
    if (this.backend !== 'redis' || ms < LEASE_MS) return;
    const keys = [
      ...this.runIds.map((runId) => storeKeys.runLease(runId)),
      ...Array.from({ length: THREADS }, (_, thread) =>
        storeKeys.threadWaitingLock(this.conversation(thread)),
      ),
    ];
    for (const key of keys) {
      const holder = await this.observer.holder(key);
      if (holder !== undefined) await this.observer.release(key, holder);
    }
  }

  async close(): Promise<void> {
    for (const replica of this.replicas) replica.life.kill();
    for (const connection of this.connections) await connection.close();
    if (this.backend === 'redis') await deleteRedisKeys(this.prefix);
    rmSync(this.directory, { recursive: true, force: true });
  }

  private async connect(): Promise<Store> {
    const store =
      this.backend === 'sqlite'
        ? new SqliteStore(join(this.directory, 'opsbot.sqlite'), { clock: this.clock })
        : await RedisStore.connect(REDIS_URL, { prefix: this.prefix });
    this.connections.push(store);
    return store;
  }

  private async startProcess(): Promise<Replica> {
    const life = new ProcessLife(`p${++this.processes}`);
    const store = storeOf(life, await this.connect());
    const audit = new AuditLog(store, { clock: this.clock });
    const kernel = new Kernel({
      store,
      tools: recordingTools(this.executions, life),
      model: createOpenAIModelClient({
        baseURL: this.fake.baseURL,
        apiKey: 'sk-test',
        model: 'fake',
        timeoutMs: 5_000,
        maxRetries: 0,
        clock: this.clock,
      }),
      policy: (registry) => settingsToolPolicy(this.settings, registry),
      approvals: {
        audit,
        permissions: this.settings,
      },
      chat: chatOf(life, this.chat),
      clock: this.clock,
      logger: problemLogger(life.name, this.problems),
      limits: { toolTimeoutMs: 5_000, questionTtlMs: QUESTION_TTL_MS, maxWallTimeMs: MAX_WALL_TIME_MS },
      runLeaseMs: LEASE_MS,
      // The clock is frozen, so a command waiting for a dead process's lease counts its tries without sleeping.
      leaseRetrySleep: () => Promise.resolve(),
      newId: () => {
        const id = `run_${this.runIds.length + 1}`;
        this.runIds.push(id);
        return id;
      },
    });
    const sweep = kernel.expirySweep({ setTimeout: () => undefined, clearTimeout: () => undefined });
    return { kernel, life, sweep };
  }
}

function chatOf(life: ProcessLife, chat: ChatPort): ChatPort {
  return {
    post: (conversation, message) => life.act(() => chat.post(conversation, message)),
    update: (ref, message) => life.act(() => chat.update(ref, message)),
  };
}

/** Errors a kernel logs are problems of the run; warnings (a busy run, a late sweep) are not. */
function problemLogger(name: string, problems: string[]): Logger {
  const logger: Logger = {
    debug() {},
    info() {},
    warn() {},
    error(fields, message) {
      problems.push(`${name} logged an error: ${message ?? ''} ${JSON.stringify(fields)}`);
    },
    child: () => logger,
  };
  return logger;
}

export async function redisAnswers(): Promise<boolean> {
  try {
    const probe = await RedisStore.connect(REDIS_URL, {
      prefix: 'opsbot-test:probe:',
      connectTimeoutMs: 1000,
    });
    await probe.close();
    return true;
  } catch {
    return false;
  }
}
