// Builds the real Bolt App: HTTP events on our shared server, or Socket Mode when an app-level token is set.
import { App, HTTPReceiver, SocketModeReceiver } from '@slack/bolt';
import type { Logger } from '../../agent/logger.js';
import { slackLogger } from './slack-logger.js';
import { slackClientOptions } from './slack-web-client.js';

export const SLACK_EVENTS_PATH = '/slack/events';

export type SlackAppSettings = { mode: 'http'; signingSecret: string } | { mode: 'socket'; appToken: string };

export interface SlackAppOptions {
  settings: SlackAppSettings;
  botToken: string;
  /** From our own auth.test, so Bolt makes no call of its own while it is being built. */
  botUserId: string;
  botId?: string;
  apiUrl?: string;
  logger: Logger;
}

export interface BuiltSlackApp {
  app: App;
  /** Set in HTTP mode: the request listener to mount at /slack/events on the shared server. */
  http?: HTTPReceiver;
}

/**
 * Reconnecting in Socket Mode calls apps.connections.open; a network blip must not end the connection for good,
 * so that one call keeps trying for several minutes.
 */
const SOCKET_CONNECT_RETRY = { retries: 20, factor: 1.5, minTimeout: 1_000, maxTimeout: 30_000 };

export function buildSlackApp(options: SlackAppOptions): BuiltSlackApp {
  const logger = slackLogger(options.logger, 'bolt');
  const clientOptions = slackClientOptions(options.apiUrl);
  const common = {
    token: options.botToken,
    botUserId: options.botUserId,
    ...(options.botId ? { botId: options.botId } : {}),
    logger,
    clientOptions,
    ignoreSelf: true,
    // Conversation state lives in our Store, not in Bolt's per-process memory.
    convoStore: false as const,
  };
  if (options.settings.mode === 'socket') {
    const receiver = new SocketModeReceiver({
      appToken: options.settings.appToken,
      logger,
      installerOptions: { clientOptions: { ...clientOptions, retryConfig: SOCKET_CONNECT_RETRY } },
    });
    return { app: new App({ ...common, receiver }) };
  }
  const receiver = new HTTPReceiver({
    signingSecret: options.settings.signingSecret,
    endpoints: SLACK_EVENTS_PATH,
    logger,
    // Events are acked before listeners run; commands and buttons ack first thing in their listeners.
    processBeforeResponse: false,
  });
  return { app: new App({ ...common, receiver }), http: receiver };
}
