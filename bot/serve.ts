// `npm start`: the whole bot in one process: kernel, router, the HTTP server, the playground and the chat
// adapters whose tokens are set.
import { systemClock } from '../agent/clock.js';
import { errorMessage } from '../agent/errors.js';
import type { Logger } from '../agent/logger.js';
import type { Platform } from '../agent/principal.js';
import { StoreEpoch } from '../agent/store/store-epoch.js';
import { StoreResetWatch } from '../agent/store-reset-watch.js';
import { systemTimers } from '../agent/timers.js';
import { selfUrlOf } from '../scheduled/self-address.js';
import { ChatPortByPlatform } from './chat-port-by-platform.js';
import { liveProcesses, ProcessPresence } from './cluster/process-presence.js';
import { settingsHash, warnOnSettingsDrift } from './cluster/settings-drift.js';
import { createOpsbot } from './compose.js';
import {
  discordConfigured,
  metricsEnabled,
  playgroundEnabled,
  readEnvironment,
  slackMode,
} from './config/environment.js';
import { loadSettings, settingsLocation } from './config/load-settings.js';
import { HttpServer } from './http/http-server.js';
import { createLogger } from './logger.js';
import { Router } from './router/router.js';
import { writeServerSettingsMarker } from './server-settings-marker.js';
import {
  alertChannelsWithoutAdapter,
  alertDeliveryService,
  heldAlertService,
  mountAlerts,
} from './services/alerts-service.js';
import { expirySweepService } from './services/expiry-sweep-service.js';
import { httpService } from './services/http-service.js';
import { kernelService } from './services/kernel-service.js';
import { mcpService } from './services/mcp-service.js';
import { modelService } from './services/model-service.js';
import { createPatrols, patrolService } from './services/patrol-service.js';
import { PlaygroundService } from './services/playground-service.js';
import { RecoverySweep } from './services/recovery-sweep.js';
import { ServiceSet } from './services/service-set.js';
import { storeResetService } from './services/store-reset-service.js';
import { storeService } from './services/store-service.js';
import { storeWritesService } from './services/store-writes-service.js';
import { workersService } from './services/workers-service.js';
import { settingsRedactor } from './settings-redactor.js';
import { installGracefulShutdown } from './shutdown.js';
import type { StartUp } from './start-up-banner.js';

export interface ServeOptions {
  env: NodeJS.ProcessEnv;
  /** `--config <file>` overrides OPSBOT_CONFIG. */
  argv: string[];
}

export interface Serving {
  /** The playground's address (or the HTTP server's, with the playground off). */
  url: string;
  logger: Logger;
  /** What started, for the start-up banner (start-up-banner.ts). */
  startUp: StartUp;
  /** Settings that are valid but will not do what they seem to (Opsbot.warnings), for run-server.ts to say. */
  warnings: readonly string[];
  /** Stops everything in order; safe to call more than once. */
  stop(): Promise<void>;
}

/** How often the store's epoch is read, besides on each click that finds no approval. */
const STORE_EPOCH_CHECK_MS = 15_000;

/** How often runs whose process died are looked for (their lease ran out) and taken over. */
const RECOVERY_SWEEP_MS = 10_000;

export async function serve(options: ServeOptions): Promise<Serving> {
  const environment = readEnvironment(options.env);
  const configPath = configArgument(options.argv);
  const location = configPath
    ? { path: configPath, origin: 'argument' as const }
    : settingsLocation(environment);
  const loaded = await loadSettings(location.path, { origin: location.origin });
  const { settings } = loaded;
  const redactor = settingsRedactor(settings);
  const logger = createLogger({ level: environment.LOG_LEVEL, redact: (text) => redactor.redact(text) });

  const role = environment.OPSBOT_ROLE;
  const takesEvents = role !== 'worker';
  const stepsRuns = role !== 'gateway';
  const chat = new ChatPortByPlatform();
  // The chat SDKs, the metrics and the Redis clients are loaded only when configured: a start-up pays for what runs.
  const metrics = metricsEnabled(environment)
    ? new (await import('./metrics/opsbot-metrics.js')).OpsbotMetrics()
    : undefined;
  const opsbot = await createOpsbot({
    environment,
    settings,
    chat,
    logger,
    redactor,
    shareQueue: true,
    ...(metrics ? { metrics } : {}),
  });
  // A worker posts through the Web APIs; a gateway's and a single process's adapters register their own ports.
  const workerChat =
    role === 'worker'
      ? (await import('./services/worker-chat.js')).registerWorkerChat(chat, environment, logger, systemClock)
      : [];
  // Patrols run on their schedule where runs are stepped; a gateway answers their buttons and commands, and a
  // manual run it starts has its checks made by the workers.
  // A check of `{{opsbot.url}}` reaches this process where it listens (PORT=0 picks the port at start).
  const selfUrl = () => selfUrlOf(environment.HOST, http.port);
  const patrols = createPatrols(opsbot, chat, logger, systemClock, { schedule: stepsRuns, selfUrl });
  // A store emptied under the bot (Redis FLUSHALL) is noticed by its epoch, and said in the threads it cost.
  const storeReset = new StoreResetWatch({
    epoch: new StoreEpoch(opsbot.store),
    store: opsbot.store,
    kernel: opsbot.kernel,
    logger,
    timers: systemTimers,
    intervalMs: STORE_EPOCH_CHECK_MS,
  });
  const http = new HttpServer({ host: environment.HOST, port: environment.PORT, logger });
  const alerts = mountAlerts({
    opsbot,
    chat,
    http,
    logger,
    clock: systemClock,
    takesEvents,
    ...(metrics ? { metrics } : {}),
  });
  const router = new Router({
    kernel: opsbot.kernel,
    settings,
    logger,
    slashCommand: environment.SLACK_SLASH_COMMAND,
    ...(patrols ? { patrols } : {}),
    storeReset,
    ...(alerts.buttons ? { alerts: alerts.buttons } : {}),
  });
  if (metrics)
    (await import('./metrics/serve-metrics.js')).serveMetrics({
      metrics,
      opsbot,
      http,
      logger,
      clock: systemClock,
    });
  const playground = playgroundEnabled(environment);
  const slack =
    takesEvents && slackMode(environment)
      ? new (await import('./services/slack-service.js')).SlackService({
          slack: {
            opsbot,
            router,
            environment,
            settings,
            logger,
            allowedBotIds: settings.slack.allowed_bot_ids,
          },
          chat,
          http,
        })
      : undefined;
  const discord =
    takesEvents && discordConfigured(environment)
      ? new (await import('./services/discord-service.js')).DiscordService({
          opsbot,
          router,
          environment,
          settings,
          chat,
          logger,
        })
      : undefined;
  // Who else runs, for `opsbot cluster`, and whether they run with the same settings.
  await warnOnSettingsDrift(
    opsbot.store,
    settings,
    await liveProcesses(opsbot.store, systemClock.now()),
    logger,
  ).catch((error) =>
    logger.warn({ err: errorMessage(error) }, 'could not compare settings with other processes'),
  );
  const presence = new ProcessPresence({
    store: opsbot.store,
    clock: systemClock,
    logger,
    record: {
      instanceId: opsbot.instanceId,
      role,
      concurrency: settings.limits.worker_concurrency,
      settingsHash: settingsHash(settings),
      ...postingProfile({
        role,
        playground,
        slack: slack !== undefined,
        discord: discord !== undefined,
        workerChat,
      }),
    },
  });
  const recovery = new RecoverySweep({ kernel: opsbot.kernel, logger, intervalMs: RECOVERY_SWEEP_MS });
  // Started in this order and stopped in reverse, each part by its own service: the sweeps, the HTTP server and
  // the adapters stop taking work first, the playground lets the events in progress settle, the kernel stops
  // stepping runs, and the store closes last. The kernel runs from the moment it is composed, so its service
  // comes right after the store's: a part that fails to start stops it too.
  const services = new ServiceSet(
    [
      storeService(opsbot),
      storeWritesService(opsbot),
      // Before the kernel, so it stops after it: a call in flight ends before its server is stopped.
      opsbot.mcp ? mcpService(opsbot.mcp) : undefined,
      kernelService(opsbot.kernel),
      storeResetService(storeReset),
      presence,
      playground
        ? new PlaygroundService({ opsbot, router, httpServer: http, settings, environment, logger, chat })
        : undefined,
      opsbot.modelHealth ? modelService(opsbot.modelHealth) : undefined,
      slack,
      discord,
      httpService(http, environment),
      alerts.delivery ? alertDeliveryService(alerts.delivery) : undefined,
      alerts.held ? heldAlertService(alerts.held) : undefined,
      stepsRuns ? recovery : undefined,
      // A gateway is ready only while some process steps its runs.
      stepsRuns ? undefined : workersService(opsbot.store, systemClock),
      stepsRuns ? expirySweepService(opsbot.kernel) : undefined,
      patrols ? patrolService(patrols) : undefined,
    ],
    { logger, readiness: http },
  );
  await services.start();
  if (alerts.on) {
    // A Discord adapter on standby (another gateway holds the connection) posts from that gateway instead.
    const unposted = alertChannelsWithoutAdapter(
      settings.alerts,
      (platform) => chat.has(platform) || (platform === 'discord' && discord !== undefined),
    );
    if (unposted.length > 0) {
      logger.warn(
        { channels: unposted },
        `alerts go to ${unposted.join(', ')}, but this process runs no adapter for that platform: those groups are kept and retried, and shown once it runs (set its token, e.g. SLACK_BOT_TOKEN or DISCORD_TOKEN, or OPSBOT_PLAYGROUND=on)`,
      );
    }
  }
  const url = http.url;
  // A CLI command on this machine reads the settings file this server reads (bot/cli/cli-context.ts).
  const removeMarker = writeServerSettingsMarker(
    environment.OPSBOT_DATA_DIR,
    loaded.source === 'file' ? loaded.path : undefined,
  );
  const uninstall = installGracefulShutdown({
    logger,
    steps: [{ name: 'settings marker', stop: async () => removeMarker() }, ...services.stopSteps()],
  });

  const startUp: StartUp = {
    role,
    url,
    playground,
    playgroundToken: Boolean(environment.OPSBOT_PLAYGROUND_TOKEN),
    metrics: metrics !== undefined,
    worker: { concurrency: settings.limits.worker_concurrency, chat: workerChat },
    ...(slack?.adapter
      ? { slack: { mode: slack.adapter.mode, slashCommand: environment.SLACK_SLASH_COMMAND } }
      : {}),
    ...(discord
      ? {
          discord: discord.adapter
            ? { botUserId: discord.adapter.botUserId, messageContent: settings.discord.message_content }
            : ('standby' as const),
        }
      : {}),
    settingsPath: loaded.source === 'file' ? loaded.path : undefined,
    described: opsbot.describe(),
    ...(patrols
      ? { patrols: { running: patrols.running(), configured: Object.keys(settings.patrols) } }
      : {}),
    recovered: recovery.recovered,
    alerts: alerts.on
      ? {
          on: true,
          ...(settings.alerts.channel ? { channel: alertChannelText(settings.alerts.channel) } : {}),
          routes: settings.alerts.routes.length,
          investigate: settings.alerts.investigate && opsbot.model !== undefined,
        }
      : { on: false },
  };

  let stopping: Promise<void> | undefined;
  return {
    url,
    logger,
    startUp,
    warnings: opsbot.warnings,
    stop() {
      stopping ??= (async () => {
        uninstall();
        removeMarker();
        await services.stop();
      })();
      return stopping;
    },
  };
}

/** Where this process takes requests from and, when it steps runs, where it can post (posting-mix.ts). */
function postingProfile(parts: {
  role: 'all' | 'gateway' | 'worker';
  playground: boolean;
  slack: boolean;
  discord: boolean;
  workerChat: readonly Platform[];
}): { takes: Platform[]; posts: Platform[] } {
  const takes: Platform[] = [
    ...(parts.playground ? (['playground'] as const) : []),
    ...(parts.slack ? (['slack'] as const) : []),
    ...(parts.discord ? (['discord'] as const) : []),
  ];
  if (parts.role === 'gateway') return { takes, posts: [] };
  const posts = parts.role === 'worker' ? [...parts.workerChat] : takes;
  return { takes, posts };
}

function alertChannelText(channel: { platform: string; channelId: string }): string {
  return `${channel.platform}:${channel.channelId}`;
}

function configArgument(argv: string[]): string | undefined {
  let path: string | undefined;
  for (let index = 0; index < argv.length; index++) {
    const argument = argv[index]!;
    if (argument === '--config' && argv[index + 1] !== undefined) path = argv[++index];
    else if (argument.startsWith('--config=')) path = argument.slice('--config='.length);
    else throw new Error(`Unknown argument ${argument}. Usage: npm start [-- --config <opsbot.yaml>]`);
  }
  return path;
}
