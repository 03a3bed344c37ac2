// The Discord adapter end to end for tests: the real discord.js Client (through DiscordService) against the fake
// Discord, the real router and kernel, a scripted model, a ManualClock, and a logger that keeps what it was told.
import { ManualClock } from '../../agent/clock.js';
import { Kernel } from '../../agent/kernel.js';
import type { Logger } from '../../agent/logger.js';
import { createOpenAIModelClient } from '../../agent/model/model-client.js';
import { AuditLog } from '../../agent/policy/audit-log.js';
import { PermissionSettingsSchema } from '../../agent/policy/permission-settings.js';
import { settingsToolPolicy } from '../../agent/policy/settings-tool-policy.js';
import { MemoryStore } from '../../agent/store/memory-store.js';
import { ChatPortByPlatform } from '../../bot/chat-port-by-platform.js';
import { readEnvironment } from '../../bot/config/environment.js';
import { SettingsSchema } from '../../bot/config/settings-schema.js';
import type { DiscordAdapter } from '../../bot/discord/discord-adapter.js';
import { Router } from '../../bot/router/router.js';
import { DiscordService } from '../../bot/services/discord-service.js';
import { type DiscordApiCall, type FakeDiscord, startFakeDiscord } from '../fakes/discord/fake-discord.js';
import { type FakeOpenAIServer, startFakeOpenAIServer } from '../fakes/openai-server.js';
import { ToolProbe, testTools } from '../kernel/harness.js';

export const GUILD = '800000000000000001';
export const CHANNEL = '800000000000000002';
export const ALICE = { id: '700000000000000001', username: 'alice' };
export const BOB = { id: '700000000000000002', username: 'bob' };
/** In no identity, so the default role: a viewer, who may neither approve nor deny. */
export const CAROL = { id: '700000000000000003', username: 'carol' };

export const permissions = PermissionSettingsSchema.parse({
  roles: {
    operator: { tools: ['*'], risks: ['read', 'write', 'danger'] },
    admin: { tools: ['*'], risks: ['read', 'write', 'danger'], approve: ['*'], admin: true },
  },
  identities: {
    [`discord:${ALICE.id}`]: { roles: ['operator'] },
    [`discord:${BOB.id}`]: { roles: ['admin'] },
  },
});

export interface LogLine {
  level: 'debug' | 'info' | 'warn' | 'error';
  msg: string;
  obj: object;
}

/** A Logger that keeps every line, for asserting on what the bot said about itself. */
export function recordingLogger(lines: LogLine[] = []): Logger & { lines: LogLine[] } {
  const at =
    (level: LogLine['level']) =>
    (obj: object, msg = '') =>
      lines.push({ level, msg, obj });
  const logger = {
    lines,
    debug: at('debug'),
    info: at('info'),
    warn: at('warn'),
    error: at('error'),
    child: () => logger,
  };
  return logger;
}

export interface RigOptions {
  /** discord.message_content in the settings (off by default). */
  messageContent?: boolean;
  /** The fake closes an IDENTIFY asking for MessageContent with 4014. */
  refuseMessageContent?: boolean;
  /** In place of the rig's own permissions. */
  permissions?: typeof permissions;
}

export interface Rig {
  clock: ManualClock;
  fake: FakeDiscord;
  model: FakeOpenAIServer;
  kernel: Kernel;
  service: DiscordService;
  adapter: DiscordAdapter;
  probe: ToolProbe;
  logger: ReturnType<typeof recordingLogger>;
  /** Waits until the adapter and the kernel have nothing left to do. */
  settled(): Promise<void>;
  /** Polls (every 5 ms, at most `timeoutMs`) until `test` holds; fails with `what` if it never does. */
  until(what: string, test: () => boolean, timeoutMs?: number): Promise<void>;
  /** Every REST call that posted or edited a message, through the bot token or an interaction webhook. */
  messageWrites(): DiscordApiCall[];
}

const open: Rig[] = [];

/** For afterEach: stops every rig started since the last call. */
export async function stopRigs(): Promise<void> {
  for (const rig of open.splice(0)) {
    await rig.service.stop();
    await rig.kernel.shutdown();
    await rig.fake.close();
    await rig.model.close();
  }
}

export async function startRig(options: RigOptions = {}): Promise<Rig> {
  const rules = options.permissions ?? permissions;
  const fake = await startFakeDiscord();
  fake.api
    .addGuild({ id: GUILD, name: 'ops team', channels: [{ id: CHANNEL, name: 'ops' }] })
    .addMember(GUILD, ALICE, [])
    .addMember(GUILD, BOB, [])
    .addMember(GUILD, CAROL, []);
  fake.gateway.refuseMessageContent = options.refuseMessageContent ?? false;
  const model = await startFakeOpenAIServer();
  const clock = new ManualClock(Date.now());
  const store = new MemoryStore(clock);
  const probe = new ToolProbe();
  const chat = new ChatPortByPlatform();
  const audit = new AuditLog(store, { clock });
  const logger = recordingLogger();
  const kernel = new Kernel({
    store,
    tools: testTools(probe),
    model: createOpenAIModelClient({
      baseURL: model.baseURL,
      apiKey: 'sk-test',
      model: 'fake',
      timeoutMs: 5000,
      maxRetries: 0,
    }),
    policy: (registry) => settingsToolPolicy(rules, registry),
    approvals: { audit, permissions: rules },
    chat,
    clock,
    limits: { toolTimeoutMs: 1000 },
  });
  const settings = SettingsSchema.parse({
    permissions: rules,
    discord: { message_content: options.messageContent ?? false },
  });
  const router = new Router({ kernel, settings, logger, clock });
  const service = new DiscordService({
    opsbot: { store, instanceId: 'inst_discordrig000001' },
    router,
    environment: readEnvironment({ DISCORD_TOKEN: 'MTAw.fake.token', DISCORD_API_URL: fake.api.apiUrl }),
    settings,
    chat,
    logger,
    clock,
  });
  await service.start();
  const adapter = service.adapter!;
  const until = async (what: string, test: () => boolean, timeoutMs = 3000) => {
    const deadline = Date.now() + timeoutMs;
    while (!test()) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  };
  const settled = async () => {
    for (let round = 0; round < 3; round++) {
      await adapter.idle();
      await kernel.idle();
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  };
  const messageWrites = () =>
    fake.api.calls.filter(
      (call) =>
        (call.method === 'POST' && /^\/channels\/\d+\/messages$/.test(call.route)) ||
        (call.method === 'PATCH' && /^\/channels\/\d+\/messages\/\d+$/.test(call.route)) ||
        /^\/webhooks\//.test(call.route),
    );
  const rig = { clock, fake, model, kernel, service, adapter, probe, logger, settled, until, messageWrites };
  open.push(rig);
  return rig;
}
