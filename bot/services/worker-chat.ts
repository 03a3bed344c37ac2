// A worker's way to chat: no Slack events or Discord gateway of its own, only the platforms' Web APIs with the
// tokens from the environment, so that it can post and edit in the threads the gateways opened.
import { REST } from 'discord.js';
import type { Clock } from '../../agent/clock.js';
import type { Logger } from '../../agent/logger.js';
import type { Platform } from '../../agent/principal.js';
import type { ChatPortByPlatform } from '../chat-port-by-platform.js';
import type { Environment } from '../config/environment.js';
import { DiscordChatPort } from '../discord/discord-chat-port.js';
import { ChannelPacer } from '../slack/channel-pacer.js';
import { SlackChatPort } from '../slack/slack-chat-port.js';
import { SlackDelivery } from '../slack/slack-delivery.js';
import { createSlackWebClient } from '../slack/slack-web-client.js';

/** Registers a posting-only port for each platform whose token is set; returns the platforms it registered. */
export function registerWorkerChat(
  chat: ChatPortByPlatform,
  environment: Environment,
  logger: Logger,
  clock: Clock,
): Platform[] {
  const registered: Platform[] = [];
  if (environment.SLACK_BOT_TOKEN) {
    const client = createSlackWebClient({
      token: environment.SLACK_BOT_TOKEN,
      apiUrl: environment.SLACK_API_URL,
      logger,
    });
    const delivery = new SlackDelivery({
      client,
      clock,
      logger,
      pacer: new ChannelPacer({ intervalMs: 1_000 }),
    });
    chat.register('slack', new SlackChatPort({ delivery, clock, logger }));
    registered.push('slack');
  }
  if (environment.DISCORD_TOKEN) {
    const rest = new REST({
      ...(environment.DISCORD_API_URL ? { api: environment.DISCORD_API_URL } : {}),
    }).setToken(environment.DISCORD_TOKEN);
    chat.register('discord', new DiscordChatPort({ rest, clock }));
    registered.push('discord');
  }
  return registered;
}
