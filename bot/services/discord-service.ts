// Discord as a service: connects to the gateway with the real discord.js Client and registers its ChatPort.
import { type Clock, systemClock } from '../../agent/clock.js';
import type { Logger } from '../../agent/logger.js';
import type { ChatEventHandler } from '../chat/event-intake.js';
import type { ChatPortByPlatform } from '../chat-port-by-platform.js';
import type { Opsbot } from '../compose.js';
import type { Environment } from '../config/environment.js';
import type { Settings } from '../config/settings-schema.js';
import { type DiscordAdapter, startDiscord } from '../discord/discord-adapter.js';
import { describeMessageContent } from '../discord/discord-intents.js';
import type { Service, ServiceReadiness } from './service.js';

export interface DiscordServiceOptions {
  opsbot: Pick<Opsbot, 'store'>;
  router: ChatEventHandler;
  environment: Environment;
  settings: Settings;
  chat: ChatPortByPlatform;
  logger: Logger;
  /** The system clock unless a test passes its own. */
  clock?: Clock;
}

export class DiscordService implements Service {
  readonly name = 'discord';
  adapter: DiscordAdapter | undefined;

  constructor(private readonly options: DiscordServiceOptions) {}

  async start(): Promise<void> {
    const { environment, settings } = this.options;
    if (!environment.DISCORD_TOKEN) throw new Error('DISCORD_TOKEN is not set');
    this.adapter = await startDiscord({
      token: environment.DISCORD_TOKEN,
      ...(environment.DISCORD_API_URL ? { apiUrl: environment.DISCORD_API_URL } : {}),
      router: this.options.router,
      store: this.options.opsbot.store,
      permissions: settings.permissions,
      messageContent: settings.discord.message_content,
      allowedBotIds: settings.discord.allowed_bot_ids,
      clock: this.options.clock ?? systemClock,
      logger: this.options.logger,
    });
    this.options.chat.register('discord', this.adapter.port);
  }

  async stop(): Promise<void> {
    await this.adapter?.stop();
  }

  async readiness(): Promise<ServiceReadiness> {
    if (!this.adapter) return { ok: false, detail: 'not started' };
    const state = this.adapter.state();
    return {
      ok: state === 'ready',
      detail: `gateway ${state} as ${this.adapter.botUserId} · ${describeMessageContent(this.adapter.messageContent)}`,
    };
  }
}
