// Wires the playground into a running opsbot: store, ChatPort, live stream, API and page on the shared HTTP server.
import type { ChatPort } from '../../agent/chat-port.js';
import type { Logger } from '../../agent/logger.js';
import type { Opsbot } from '../compose.js';
import { type Environment, modelConfigured } from '../config/environment.js';
import type { Settings } from '../config/settings-schema.js';
import type { HttpServer } from '../http/http-server.js';
import { createPlaygroundHandler } from './playground-api.js';
import { createPlaygroundGuard } from './playground-auth.js';
import { PlaygroundChatPort } from './playground-chat-port.js';
import { type EventHandler, PlaygroundDispatcher } from './playground-dispatch.js';
import { PlaygroundEvents } from './playground-events.js';
import { trackAnsweredQuestions } from './playground-questions.js';
import { DEFAULT_CHANNEL, PlaygroundStore } from './playground-store.js';
import { playgroundUsers } from './playground-users.js';

export interface StartPlaygroundOptions {
  opsbot: Pick<Opsbot, 'kernel' | 'store'>;
  router: EventHandler;
  httpServer: HttpServer;
  settings: Settings;
  environment: Environment;
  logger: Logger;
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
  const store = new PlaygroundStore(options.opsbot.store);
  await store.ensureChannel(DEFAULT_CHANNEL);
  const events = new PlaygroundEvents({ store, logger: log });
  const users = playgroundUsers(settings.permissions);
  const dispatcher = new PlaygroundDispatcher({
    router: options.router,
    store,
    events,
    permissions: settings.permissions,
    logger: log,
    botName: settings.bot_name,
    slashCommand: environment.SLACK_SLASH_COMMAND,
  });
  const untrack = trackAnsweredQuestions(options.opsbot.kernel, store, settings.permissions, log);
  const model = modelConfigured(environment);
  httpServer.mount(
    '/',
    createPlaygroundHandler({
      guard: createPlaygroundGuard({ token: environment.OPSBOT_PLAYGROUND_TOKEN, host: environment.HOST }),
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
    }),
  );
  httpServer.addReadinessCheck('playground', async () => ({
    ok: true,
    detail: `${events.connections} browser stream${events.connections === 1 ? '' : 's'} open`,
  }));

  return {
    port: new PlaygroundChatPort(store, settings.bot_name),
    store,
    idle: () => dispatcher.idle(),
    async stop() {
      untrack();
      events.close();
      await dispatcher.idle();
    },
  };
}
