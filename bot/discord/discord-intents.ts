// The gateway intents opsbot asks for, and the fallback when Discord refuses MessageContent (close code 4014):
// connect again without it, say why and how to turn it on, and report which mode the bot runs in.
import { Client, Events, GatewayIntentBits, Partials } from 'discord.js';
import type { Logger } from '../../agent/logger.js';

/** `on` as configured; `off` by the settings; `refused` because Discord closed the gateway with 4014. */
export type MessageContentMode = 'on' | 'off' | 'refused';

/** Discord's close code for a privileged intent the application is not allowed to use. */
export const DISALLOWED_INTENTS = 4014;

export const MESSAGE_CONTENT_HINT =
  'enable it in the Discord developer portal: your application → Bot → Privileged Gateway Intents → Message Content Intent, then restart opsbot';

const MODE_WORDS: Record<MessageContentMode, string> = {
  on: 'message content: on',
  off: 'message content: off (plain thread replies need a mention; enable the Message Content intent and set discord.message_content to read them)',
  refused: `message content: off: Discord refused the intent (4014), so plain thread replies need a mention; ${MESSAGE_CONTENT_HINT}`,
};

/** For the start-up log and /readyz. */
export function describeMessageContent(mode: MessageContentMode): string {
  return MODE_WORDS[mode];
}

export function gatewayIntents(messageContent: boolean): GatewayIntentBits[] {
  return [
    GatewayIntentBits.Guilds,
    GatewayIntentBits.GuildMessages,
    GatewayIntentBits.DirectMessages,
    ...(messageContent ? [GatewayIntentBits.MessageContent] : []),
  ];
}

export interface ConnectOptions {
  token: string;
  apiUrl?: string;
  messageContent: boolean;
  logger: Logger;
  /** Attaches the adapter's listeners to a client before it logs in, so no early event is missed. */
  prepare: (client: Client) => void;
}

/**
 * A logged-in, ready client. If MessageContent was asked for and Discord refuses it, the refused client is
 * destroyed and a new one connects with the other intents.
 */
export async function connectGateway(
  options: ConnectOptions,
): Promise<{ client: Client; mode: MessageContentMode }> {
  const first = await login(options, options.messageContent);
  if (first.outcome === 'ready') return { client: first.client, mode: options.messageContent ? 'on' : 'off' };
  await first.client.destroy();
  if (!options.messageContent)
    throw new Error('Discord closed the gateway with 4014 (disallowed intents) without MessageContent');
  options.logger.warn(
    { closeCode: DISALLOWED_INTENTS },
    `Discord refused the Message Content intent (4014): running without it, so plain thread replies need a mention; to read them, ${MESSAGE_CONTENT_HINT}`,
  );
  const second = await login(options, false);
  if (second.outcome === 'ready') return { client: second.client, mode: 'refused' };
  await second.client.destroy();
  throw new Error('Discord closed the gateway with 4014 (disallowed intents) even without MessageContent');
}

async function login(
  options: ConnectOptions,
  messageContent: boolean,
): Promise<{ client: Client; outcome: 'ready' | 'refused' }> {
  const client = new Client({
    intents: gatewayIntents(messageContent),
    // A DM channel the client has not cached reaches it only with this partial.
    partials: [Partials.Channel],
    ...(options.apiUrl ? { rest: { api: options.apiUrl } } : {}),
  });
  options.prepare(client);
  const outcome = await new Promise<'ready' | 'refused'>((resolve, reject) => {
    client.once(Events.ClientReady, () => resolve('ready'));
    client.on(Events.ShardDisconnect, (event) => {
      if (event.code === DISALLOWED_INTENTS) resolve('refused');
    });
    client.login(options.token).catch(reject);
  }).catch(async (error: unknown) => {
    await client.destroy();
    throw error;
  });
  return { client, outcome };
}
