// Wires the playground into a running opsbot: store, ChatPort, live stream, API and page on the shared HTTP server.
import type { ChatPort } from '../../agent/chat-port.js';
import { type Clock, systemClock } from '../../agent/clock.js';
import type { Logger } from '../../agent/logger.js';
import { type ChatEventHandler, EventIntake } from '../chat/event-intake.js';
import type { Opsbot } from '../compose.js';
import { type Environment, modelConfigured } from '../config/environment.js';
import type { Settings } from '../config/settings-schema.js';
import type { HttpServer } from '../http/http-server.js';
import { createPlaygroundHandler } from './playground-api.js';
import { createPlaygroundGuard } from './playground-auth.js';
import { PlaygroundChatPort } from './playground-chat-port.js';
import { PlaygroundDispatcher } from './playground-dispatch.js';
import { PlaygroundEvents } from './playground-events.js';
import { DEFAULT_CHANNEL, PlaygroundStore } from './playground-store.js';
import { playgroundUsers } from './playground-users.js';

export interface StartPlaygroundOptions {
  opsbot: Pick<Opsbot, 'store'> & Partial<Pick<Opsbot, 'modelHealth'>>;
  router: ChatEventHandler;
  httpServer: HttpServer;
  settings: Settings;
  environment: Environment;
  logger: Logger;
  clock?: Clock;
}

export interface Playground {
  /** Register it for the `playground` platform with the kernel's ChatPort. */
  port: ChatPort;
  store: PlaygroundStore;
  /** Resolves once every event handed to the router has been handled. */
  idle(): Promise<void>;
  /** Ends the live streams and waits for the events in progress; the HTTP server is stopped by its owner. */
  stop(): Promise<void>;
}

export async function startPlayground(options: StartPlaygroundOptions): Promise<Playground> {
  const { settings, environment, logger, httpServer } = options;
  const log = logger.child({ adapter: 'playground' });
  const clock = options.clock ?? systemClock;
  const store = new PlaygroundStore(options.opsbot.store, clock, {
    maxChannels: settings.playground.max_channels,
  });
  await store.ensureChannel(DEFAULT_CHANNEL);
  const events = new PlaygroundEvents({ store, logger: log, clock });
  const users = playgroundUsers(settings.permissions);
  const intake = new EventIntake({ store: options.opsbot.store, handler: options.router, logger: log });
  const dispatcher = new PlaygroundDispatcher({
    intake,
    store,
    events,
    permissions: settings.permissions,
    clock,
    botName: settings.bot_name,
    slashCommand: environment.SLACK_SLASH_COMMAND,
  });
  const model = modelConfigured(environment);
  httpServer.mount(
    '/',
    createPlaygroundHandler({
      guard: createPlaygroundGuard({
        token: environment.OPSBOT_PLAYGROUND_TOKEN,
        clock,
      }),
      clock,
      store,
      events,
      dispatcher,
      users,
      info: {
        botName: settings.bot_name,
        slashCommand: environment.SLACK_SLASH_COMMAND,
        model: model ? { configured: true, name: environment.OPENAI_MODEL } : { configured: false },
        defaultChannel: DEFAULT_CHANNEL,
      },
      maxTextChars: settings.limits.max_task_chars,
      ...(options.opsbot.modelHealth
        ? { modelHealth: options.opsbot.modelHealth.check.bind(options.opsbot.modelHealth) }
        : {}),
    }),
  );
  httpServer.addReadinessCheck('playground', async () => ({
    ok: true,
    detail: `${events.connections} browser stream${events.connections === 1 ? '' : 's'} open`,
  }));

  return {
    port: new PlaygroundChatPort(store, settings.bot_name),
    store,
    idle: () => intake.idle(),
    async stop() {
      events.close();
      await intake.idle();
    },
  };
}
