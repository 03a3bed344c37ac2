// `npm start`: the whole bot in one process: kernel, router, the HTTP server, the playground and the chat
// adapters whose tokens are set.
import { errorMessage } from '../agent/errors.js';
import { Redactor } from '../agent/redaction.js';
import { ChatPortByPlatform } from './chat-port-by-platform.js';
import { createOpsbot } from './compose.js';
import { modelConfigured, playgroundEnabled, readEnvironment, slackMode } from './config/environment.js';
import { loadSettings, settingsLocation } from './config/load-settings.js';
import { HttpServer } from './http/http-server.js';
import { createLogger } from './logger.js';
import { startPlayground } from './playground/start-playground.js';
import { Router } from './router/router.js';
import { installGracefulShutdown, type ShutdownStep } from './shutdown.js';
import { startSlack } from './slack/index.js';

export interface ServeOptions {
  env: NodeJS.ProcessEnv;
  /** `--config <file>` overrides OPSBOT_CONFIG. */
  argv: string[];
}

export interface Serving {
  /** The playground's address (or the HTTP server's, with the playground off). */
  url: string;
  /** Stops everything in order; safe to call more than once. */
  stop(): Promise<void>;
}

/** How often runs whose process died are looked for (their lease ran out) and taken over. */
const RECOVERY_SWEEP_MS = 60_000;

export async function serve(options: ServeOptions): Promise<Serving> {
  const environment = readEnvironment(options.env);
  const configPath = configArgument(options.argv);
  const location = configPath
    ? { path: configPath, origin: 'argument' as const }
    : settingsLocation(environment);
  const loaded = await loadSettings(location.path, { origin: location.origin });
  const { settings } = loaded;
  const redactor = new Redactor(settings.redaction.patterns);
  const logger = createLogger({ level: environment.LOG_LEVEL, redact: (text) => redactor.redact(text) });

  const chat = new ChatPortByPlatform();
  const opsbot = await createOpsbot({ environment, settings, chat, logger, redactor });
  const router = new Router({
    kernel: opsbot.kernel,
    settings,
    logger,
    slashCommand: environment.SLACK_SLASH_COMMAND,
  });
  const http = new HttpServer({ host: environment.HOST, port: environment.PORT, logger });
  http.addReadinessCheck('store', async () => {
    await opsbot.store.ping();
    return { ok: true, detail: opsbot.store.description };
  });
  const playground = playgroundEnabled(environment)
    ? await startPlayground({ opsbot, router, httpServer: http, settings, environment, logger })
    : undefined;
  if (playground) chat.register('playground', playground.port);
  const slack = slackMode(environment)
    ? await startSlack({
        opsbot,
        router,
        environment,
        settings,
        logger,
        allowedBotIds: settings.slack.allowed_bot_ids,
      }).catch(async (error) => {
        await playground?.stop();
        await opsbot.close();
        throw error;
      })
    : undefined;
  if (slack) {
    chat.register('slack', slack.port);
    // The token was proven by auth.test at start; readiness says which mode and bot user are in use.
    http.addReadinessCheck('slack', async () => ({
      ok: true,
      detail: `${slack.mode} mode as ${slack.botUserId}`,
    }));
    if (slack.mode === 'http')
      http.mount('/slack/events', (request, response) => slack.requestListener(request, response));
  }

  let url: string;
  try {
    url = await http.listen();
  } catch (error) {
    await slack?.stop();
    await playground?.stop();
    await opsbot.close();
    throw new Error(`Cannot listen on ${environment.HOST}:${environment.PORT}: ${errorMessage(error)}`, {
      cause: error,
    });
  }

  const recovered = await opsbot.kernel.recover();
  // Questions and approvals nobody answered expire on time; the sweep wakes for the next one.
  const expiry = opsbot.kernel.expirySweep();
  expiry.start();
  // Every minute: take over runs whose process died (their lease ran out) or that stopped while the store was
  // unreachable.
  const sweep = setInterval(() => {
    opsbot.kernel
      .recover()
      .catch((error) => logger.warn({ err: errorMessage(error) }, 'could not sweep orphaned runs'));
  }, RECOVERY_SWEEP_MS);
  sweep.unref();

  const steps: ShutdownStep[] = [
    { name: 'HTTP server', stop: () => http.close() },
    ...(slack ? [{ name: 'Slack', stop: () => slack.stop() }] : []),
    { name: 'expiry sweep', stop: () => expiry.stop() },
    { name: 'recovery sweep', stop: async () => clearInterval(sweep) },
    // The kernel stops taking work before the playground waits for the events in progress to settle.
    { name: 'kernel', stop: () => opsbot.kernel.shutdown() },
    ...(playground ? [{ name: 'playground', stop: () => playground.stop() }] : []),
    { name: 'store', stop: () => opsbot.close() },
  ];
  const uninstall = installGracefulShutdown({ logger, steps });

  const tools = opsbot.kernel.registry.names();
  const lines = [
    `opsbot is running. ${playground ? `Open ${url}/ in a browser.` : 'The playground is off (OPSBOT_PLAYGROUND=off).'}`,
    `  http:      ${url} (/healthz, /readyz${playground ? ', playground at /' : ''})`,
    ...(environment.OPSBOT_PLAYGROUND_TOKEN && playground
      ? ['  token:     required; open it once as /?token=<OPSBOT_PLAYGROUND_TOKEN>']
      : []),
    ...(slack
      ? [
          `  slack:     ${slack.mode === 'socket' ? 'Socket Mode' : `HTTP events at ${url}/slack/events`} (${environment.SLACK_SLASH_COMMAND})`,
        ]
      : []),
    `  settings:  ${loaded.source === 'file' ? loaded.path : 'built-in defaults (no opsbot.yaml found)'}`,
    `  store:     ${opsbot.store.description}`,
    `  model:     ${
      modelConfigured(environment)
        ? `${environment.OPENAI_MODEL} at ${environment.OPENAI_BASE_URL ?? 'https://api.openai.com/v1'}`
        : 'none: command engine only (set OPENAI_BASE_URL or OPENAI_API_KEY for free text)'
    }`,
    `  tools:     ${tools.length} (${tools.join(', ')})`,
    ...(recovered.continued + recovered.outcomeUnknown > 0
      ? [
          `  recovered: ${recovered.continued} runs continued, ${recovered.outcomeUnknown} marked outcome unknown`,
        ]
      : []),
  ];
  for (const line of lines) logger.info({}, line);

  let stopping: Promise<void> | undefined;
  return {
    url,
    stop() {
      stopping ??= (async () => {
        uninstall();
        for (const step of steps) {
          await step
            .stop()
            .catch((error) =>
              logger.error({ step: step.name, err: errorMessage(error) }, `could not stop ${step.name}`),
            );
        }
      })();
      return stopping;
    },
  };
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
