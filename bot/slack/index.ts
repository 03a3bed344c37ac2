// Starts the Slack adapter: checks the token, builds Bolt in HTTP or Socket Mode, and returns the ChatPort.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { z } from 'zod';
import type { ChatPort } from '../../agent/chat-port.js';
import { type Clock, systemClock } from '../../agent/clock.js';
import { errorMessage } from '../../agent/errors.js';
import type { Logger } from '../../agent/logger.js';
import type { Store } from '../../agent/store/store.js';
import { type ChatEventHandler, EventIntake } from '../chat/event-intake.js';
import { recentlyReachable } from '../chat/store-reachability.js';
import type { Environment } from '../config/environment.js';
import type { Settings } from '../config/settings-schema.js';
import { ChannelPacer } from './channel-pacer.js';
import { responseUrlPolicy } from './response-url.js';
import { buildSlackApp, type SlackAppSettings } from './slack-app.js';
import { SlackChannelNames } from './slack-channel-names.js';
import { SlackChatPort } from './slack-chat-port.js';
import { SlackDelivery } from './slack-delivery.js';
import { ephemeralReplier } from './slack-ephemeral.js';
import { registerSlackListeners } from './slack-events.js';
import { type SlackHttpHandler, slackHttpHandler } from './slack-http.js';
import { SlackIdentity } from './slack-identity.js';
import { createSlackWebClient } from './slack-web-client.js';

export type SlackEnvironment = Pick<
  Environment,
  'SLACK_BOT_TOKEN' | 'SLACK_SIGNING_SECRET' | 'SLACK_APP_TOKEN' | 'SLACK_API_URL' | 'SLACK_SLASH_COMMAND'
>;

export interface StartSlackOptions {
  /**
   * The Store whose atomic claim drops Slack's retries, across replicas too; while it cannot be reached, events
   * over HTTP are refused with 503, so that Slack sends them again.
   */
  opsbot: { store: Pick<Store, 'claim' | 'ping'> };
  router: ChatEventHandler;
  environment: SlackEnvironment;
  settings: Pick<Settings, 'permissions'>;
  logger: Logger;
  clock?: Clock;
  /** Bot ids (B…) whose messages are handled like people's; every other bot is ignored. */
  allowedBotIds?: readonly string[];
  /** Gap between posts to one channel; Slack allows about one message per second. */
  paceIntervalMs?: number;
  identityTtlMs?: number;
  fileThreshold?: number;
}

export interface SlackAdapter {
  mode: 'http' | 'socket';
  port: ChatPort;
  botUserId: string;
  /**
   * HTTP mode: serves /slack/events, for a router that sends only that path here (`HttpServer.mount`); anything
   * else, and everything in Socket Mode or once stopped, gets 404.
   */
  requestListener(request: IncomingMessage, response: ServerResponse): void;
  /** Resolves when every acked event has been fully handled (tests, and draining on shutdown). */
  idle(): Promise<void>;
  /** Stops taking events; handling already under way continues, for the kernel's shutdown to finish. */
  stop(): Promise<void>;
}

const AuthTestSchema = z.object({ user_id: z.string(), bot_id: z.string().optional() });

export async function startSlack(options: StartSlackOptions): Promise<SlackAdapter> {
  const { environment, logger: parentLogger } = options;
  const logger = parentLogger.child({ platform: 'slack' });
  const token = environment.SLACK_BOT_TOKEN;
  if (!token) throw new Error('SLACK_BOT_TOKEN is not set, so Slack cannot start');
  const mode = appSettings(environment);
  const clock = options.clock ?? systemClock;
  const client = createSlackWebClient({ token, apiUrl: environment.SLACK_API_URL, logger });
  const self = await whoAmI(client.apiCall.bind(client));
  const delivery = new SlackDelivery({
    client,
    clock,
    logger,
    pacer: new ChannelPacer({ intervalMs: options.paceIntervalMs ?? 1_000 }),
  });
  const port = new SlackChatPort({
    delivery,
    clock,
    logger,
    ...(options.fileThreshold ? { fileThreshold: options.fileThreshold } : {}),
  });
  const { app, http } = buildSlackApp({
    settings: mode,
    botToken: token,
    botUserId: self.user_id,
    ...(self.bot_id ? { botId: self.bot_id } : {}),
    ...(environment.SLACK_API_URL ? { apiUrl: environment.SLACK_API_URL } : {}),
    logger,
  });
  app.error(async (error) => {
    logger.error({ err: errorMessage(error) }, 'a Slack listener failed');
  });
  const intake = new EventIntake({ store: options.opsbot.store, handler: options.router, logger });
  registerSlackListeners(app, {
    intake,
    identity: new SlackIdentity({
      client,
      permissions: options.settings.permissions,
      clock,
      logger,
      ...(options.identityTtlMs ? { ttlMs: options.identityTtlMs } : {}),
    }),
    channels: new SlackChannelNames(client, clock, logger),
    self: {
      botUserId: self.user_id,
      ...(self.bot_id ? { botId: self.bot_id } : {}),
      allowedBotIds: new Set(options.allowedBotIds ?? []),
    },
    slashCommand: environment.SLACK_SLASH_COMMAND,
    ephemeral: ephemeralReplier(delivery, clock, logger),
    responseUrls: responseUrlPolicy(environment.SLACK_API_URL),
    logger,
  });

  let handleHttp: SlackHttpHandler = () => false;
  if (http) {
    handleHttp = slackHttpHandler(http, {
      logger,
      // At most one ping a second while the store answers, so the ack path pays no round trip per event.
      storeReachable: recentlyReachable(options.opsbot.store, clock),
    });
  } else {
    await app.start();
  }
  logger.info({ mode: mode.mode, botUserId: self.user_id }, 'Slack adapter started');
  let stopped = false;
  return {
    mode: mode.mode,
    port,
    botUserId: self.user_id,
    requestListener(request, response) {
      if (stopped || !handleHttp(request, response)) response.writeHead(404).end();
    },
    idle: () => intake.idle(),
    async stop() {
      if (stopped) return;
      stopped = true;
      if (!http) await app.stop();
    },
  };
}

function appSettings(environment: SlackEnvironment): SlackAppSettings {
  if (environment.SLACK_APP_TOKEN) return { mode: 'socket', appToken: environment.SLACK_APP_TOKEN };
  if (!environment.SLACK_SIGNING_SECRET) {
    throw new Error(
      'Slack needs SLACK_SIGNING_SECRET for HTTP events, or SLACK_APP_TOKEN (xapp-…) for Socket Mode',
    );
  }
  return { mode: 'http', signingSecret: environment.SLACK_SIGNING_SECRET };
}

/** Our bot user and bot ids: to drop our own messages and strip our mention; also proves the token works. */
async function whoAmI(apiCall: (method: string) => Promise<unknown>) {
  try {
    return AuthTestSchema.parse(await apiCall('auth.test'));
  } catch (error) {
    throw new Error(`Slack refused SLACK_BOT_TOKEN at auth.test: ${errorMessage(error)}`, { cause: error });
  }
}
