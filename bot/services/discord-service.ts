// Discord as a service: Discord allows one gateway session per bot token, so the process connects (the real
// discord.js Client) only while it holds the Discord session's leader claim in the Store; a standby keeps trying
// and connects when it wins, and a leader that loses the claim disconnects at once. With SQLite (one process)
// the claim is won at start. Posts go through the connected adapter, or through REST while not connected.
import { REST } from 'discord.js';
import type { ChatPort } from '../../agent/chat-port.js';
import { type Clock, systemClock } from '../../agent/clock.js';
import { errorMessage } from '../../agent/errors.js';
import type { Logger } from '../../agent/logger.js';
import { storeKeys } from '../../agent/store/store-keys.js';
import type { ChatEventHandler } from '../chat/event-intake.js';
import type { ChatPortByPlatform } from '../chat-port-by-platform.js';
import { LeaderClaim } from '../cluster/leader-claim.js';
import type { Opsbot } from '../compose.js';
import type { Environment } from '../config/environment.js';
import type { Settings } from '../config/settings-schema.js';
import { type DiscordAdapter, startDiscord } from '../discord/discord-adapter.js';
import { DiscordChatPort } from '../discord/discord-chat-port.js';
import { describeMessageContent } from '../discord/discord-intents.js';
import type { Service, ServiceReadiness } from './service.js';

export interface DiscordServiceOptions {
  opsbot: Pick<Opsbot, 'store' | 'instanceId'>;
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
  /** The gateway connection, while this process leads and is connected. */
  adapter: DiscordAdapter | undefined;
  private readonly claim: LeaderClaim;
  /** Connects and disconnects one after another, in the order the claim was won and lost. */
  private transitions: Promise<void> = Promise.resolve();
  private stopping = false;
  /** Why the last connection failed, so that a failure at start stops start-up. */
  private connectError: unknown;

  constructor(private readonly options: DiscordServiceOptions) {
    const { opsbot, settings, logger } = options;
    this.claim = new LeaderClaim({
      store: opsbot.store,
      key: storeKeys.discordSession,
      owner: opsbot.instanceId,
      ttlMs: settings.discord.session_lock,
      clock: this.clock,
      logger,
      onWon: () => this.queue(() => this.connect()),
      onLost: () => this.queue(() => this.disconnect()),
    });
  }

  private get clock(): Clock {
    return this.options.clock ?? systemClock;
  }

  async start(): Promise<void> {
    const { environment, chat } = this.options;
    const token = environment.DISCORD_TOKEN;
    if (!token) throw new Error('DISCORD_TOKEN is not set');
    const rest = new REST({
      ...(environment.DISCORD_API_URL ? { api: environment.DISCORD_API_URL } : {}),
    }).setToken(token);
    const restPort = new DiscordChatPort({ rest, clock: this.clock });
    const port: ChatPort = {
      post: (conversation, message) => (this.adapter?.port ?? restPort).post(conversation, message),
      update: (ref, message) => (this.adapter?.port ?? restPort).update(ref, message),
    };
    await this.claim.start();
    // The first connection is awaited, so that a bad token stops start-up as before.
    await this.transitions;
    if (this.connectError !== undefined) {
      await this.claim.halt();
      await this.claim.release();
      throw this.connectError;
    }
    chat.register('discord', port);
  }

  async stop(): Promise<void> {
    this.stopping = true;
    await this.claim.halt();
    await this.transitions;
    await this.disconnect();
    // Released at once, so that another gateway need not wait for the claim to lapse.
    await this.claim.release();
  }

  async readiness(): Promise<ServiceReadiness> {
    const state = await this.claim.state();
    if (!state.leader)
      return {
        ok: true,
        detail: `standby: ${state.holder ?? 'nobody'} holds the session${state.holder ? '' : '; claiming it'}`,
      };
    if (!this.adapter) return { ok: false, detail: 'leader · connecting to the gateway' };
    const gateway = this.adapter.state();
    return {
      ok: gateway === 'ready',
      detail: `leader · gateway ${gateway} as ${this.adapter.botUserId} · ${describeMessageContent(this.adapter.messageContent)}`,
    };
  }

  private queue(step: () => Promise<void>): void {
    this.transitions = this.transitions.then(step).catch((error) => {
      this.options.logger.error({ err: errorMessage(error) }, 'Discord session change failed');
    });
  }

  private async connect(): Promise<void> {
    if (this.stopping || !this.claim.isLeader || this.adapter) return;
    const { environment, settings, router, opsbot, logger } = this.options;
    try {
      this.adapter = await startDiscord({
        token: environment.DISCORD_TOKEN ?? '',
        ...(environment.DISCORD_API_URL ? { apiUrl: environment.DISCORD_API_URL } : {}),
        router,
        store: opsbot.store,
        permissions: settings.permissions,
        messageContent: settings.discord.message_content,
        allowedBotIds: settings.discord.allowed_bot_ids,
        clock: this.clock,
        logger,
      });
      logger.info({ instanceId: opsbot.instanceId }, 'this process holds the Discord session');
      this.connectError = undefined;
    } catch (error) {
      this.connectError = error;
      logger.error(
        { err: errorMessage(error) },
        'could not connect to the Discord gateway; giving up the session for another gateway to try',
      );
      // Another gateway may do better; this one tries again at its next interval.
      await this.claim.resign();
    }
  }

  private async disconnect(): Promise<void> {
    const adapter = this.adapter;
    this.adapter = undefined;
    if (!adapter) return;
    await adapter.stop();
    this.options.logger.info({}, 'disconnected from the Discord gateway');
  }
}
