// The whole fake Discord: REST and gateway together, with helpers that play a person writing, clicking and
// filling in a modal.
import { channelPayload, memberPayload, messagePayload, userPayload } from './discord-payloads.js';
import { FakeDiscordApi } from './fake-discord-api.js';
import { FakeDiscordGateway, type GatewayOptions } from './fake-discord-gateway.js';
import { modalSubmitData } from './fake-discord-modals.js';
import {
  DIRECT_MESSAGES_INTENT,
  FAKE_DISCORD_BOT,
  type FakeDiscordMessage,
  type FakeDiscordUser,
  GUILD_MESSAGES_INTENT,
  MESSAGE_CONTENT_INTENT,
} from './fake-discord-state.js';

export * from './fake-discord-api.js';
export * from './fake-discord-gateway.js';
export * from './fake-discord-modals.js';
export * from './fake-discord-state.js';

/** What an interaction's member may do: View Channel, Send Messages, Embed Links, Read Message History and more. */
const MEMBER_PERMISSIONS = '2248473465835073';
const BOT_PERMISSIONS = '2248473465835073';

export interface IncomingMessage {
  channelId: string;
  author: FakeDiscordUser;
  content: string;
  /** Puts `<@bot>` in front of the content and the bot in `mentions`. */
  mentionBot?: boolean;
  /** The author's role ids, sent as `member.roles` in a guild. */
  roles?: string[];
}

export interface IncomingInteraction {
  channelId: string;
  user: FakeDiscordUser;
  roles?: string[];
  /**
   * The guild the interaction names, when not the channel's: as Discord sends a user-installed app's interactions
   * from servers the bot is not in.
   */
  guildId?: string;
}

export class FakeDiscord {
  private interactionCounter = 0;

  private constructor(
    readonly api: FakeDiscordApi,
    readonly gateway: FakeDiscordGateway,
  ) {}

  static async start(options: GatewayOptions = {}): Promise<FakeDiscord> {
    const api = await new FakeDiscordApi().listen();
    const gateway = await FakeDiscordGateway.start(api, options);
    return new FakeDiscord(api, gateway);
  }

  get botUser(): FakeDiscordUser {
    return { id: FAKE_DISCORD_BOT.userId, username: FAKE_DISCORD_BOT.username, bot: true };
  }

  /**
   * Records a message and dispatches MESSAGE_CREATE when the client's intents ask for it (GuildMessages in a guild,
   * DirectMessages in a DM). Without the MessageContent intent the content is blanked, as Discord does, unless the
   * message mentions the bot, is a DM, or is the bot's own.
   */
  sendMessage(incoming: IncomingMessage): FakeDiscordMessage {
    const channel = this.api.channels.get(incoming.channelId);
    if (!channel) throw new Error(`the fake has no channel ${incoming.channelId}`);
    const content = incoming.mentionBot
      ? `<@${FAKE_DISCORD_BOT.userId}> ${incoming.content}`
      : incoming.content;
    const message: FakeDiscordMessage = {
      id: this.api.nextId(),
      channelId: channel.id,
      author: incoming.author,
      content,
      embeds: [],
      components: [],
      attachments: [],
      history: [],
    };
    this.api.allMessages.push(message);
    const intents = this.gateway.intents ?? 0;
    if ((intents & (channel.type === 1 ? DIRECT_MESSAGES_INTENT : GUILD_MESSAGES_INTENT)) === 0)
      return message;
    const contentVisible =
      (intents & MESSAGE_CONTENT_INTENT) !== 0 ||
      incoming.mentionBot === true ||
      channel.type === 1 ||
      incoming.author.id === FAKE_DISCORD_BOT.userId;
    this.gateway.dispatch('MESSAGE_CREATE', {
      ...messagePayload({ ...message, content: contentVisible ? content : '' }, channel.guildId),
      mentions: incoming.mentionBot ? [userPayload(this.botUser)] : [],
      // discord.js builds an uncached DM channel (Partials.Channel) only when it knows the channel's type.
      channel_type: channel.type,
      ...(channel.guildId ? { member: memberWithoutUser(incoming.author, incoming.roles ?? []) } : {}),
    });
    return message;
  }

  /** Dispatches INTERACTION_CREATE for `/ops` (or `name`) with string options; returns its id and token. */
  slashCommand(incoming: IncomingInteraction & { name?: string; options?: Record<string, string> }) {
    const options = Object.entries(incoming.options ?? {}).map(([name, value]) => ({ name, type: 3, value }));
    return this.interaction(incoming, 2, {
      id: '900000000000000100',
      name: incoming.name ?? 'ops',
      type: 1,
      options,
    });
  }

  /** Dispatches INTERACTION_CREATE for a click on a button of `messageId`; returns its id and token. */
  clickButton(incoming: IncomingInteraction & { messageId: string; customId: string }) {
    const message = this.api.message(incoming.messageId);
    if (!message) throw new Error(`the fake has no message ${incoming.messageId}`);
    return this.interaction(incoming, 3, { custom_id: incoming.customId, component_type: 2 }, message);
  }

  /**
   * The person who got a modal fills it in (`values` by input custom_id; the rest left empty) and submits it:
   * INTERACTION_CREATE type 5 (MODAL_SUBMIT) from the same user, channel and card. Returns its id and token.
   */
  submitModal(shownFor: { token: string }, values: Record<string, string> = {}) {
    const shown = this.api.interactions.get(shownFor.token);
    if (!shown?.modal) throw new Error('the bot showed no modal for that interaction');
    const message = shown.messageId ? this.api.message(shown.messageId) : undefined;
    return this.interaction(
      { channelId: shown.channelId, user: shown.user, roles: shown.roles },
      5,
      modalSubmitData(shown.modal, values),
      message,
    );
  }

  /** Cuts the gateway connection; the client resumes and gets what it missed. */
  dropConnections(): void {
    this.gateway.dropConnections();
  }

  /** Delivers a message's MESSAGE_CREATE again, with a new sequence number, as Discord may around a resume. */
  redeliverMessage(messageId: string): void {
    this.gateway.redeliver('MESSAGE_CREATE', (data) => (data as { id?: unknown }).id === messageId);
  }

  messages(channelId: string): FakeDiscordMessage[] {
    return this.api.messages(channelId);
  }

  async close(): Promise<void> {
    await this.gateway.close();
    await this.api.close();
  }

  private interaction(
    incoming: IncomingInteraction,
    type: 2 | 3 | 5,
    data: Record<string, unknown>,
    message?: FakeDiscordMessage,
  ): { id: string; token: string } {
    const channel = this.api.channels.get(incoming.channelId);
    if (!channel) throw new Error(`the fake has no channel ${incoming.channelId}`);
    const guildId = incoming.guildId ?? channel.guildId;
    this.interactionCounter += 1;
    const id = this.api.nextId();
    const token = `fake-interaction-token-${this.interactionCounter}`;
    this.api.interactions.set(token, {
      id,
      token,
      type,
      user: incoming.user,
      roles: incoming.roles ?? [],
      channelId: channel.id,
      ...(guildId ? { guildId } : {}),
      ...(message ? { messageId: message.id } : {}),
    });
    this.gateway.dispatch('INTERACTION_CREATE', {
      id,
      application_id: FAKE_DISCORD_BOT.applicationId,
      type,
      token,
      version: 1,
      data,
      channel_id: channel.id,
      channel: channelPayload(channel),
      ...(guildId
        ? {
            guild_id: guildId,
            guild_locale: 'en-US',
            member: {
              ...memberPayload(incoming.user, incoming.roles ?? []),
              permissions: MEMBER_PERMISSIONS,
            },
            context: 0,
          }
        : { user: userPayload(incoming.user), context: 1 }),
      ...(message ? { message: messagePayload(message, channel.guildId) } : {}),
      app_permissions: BOT_PERMISSIONS,
      locale: 'en-US',
      entitlements: [],
      authorizing_integration_owners: {},
      attachment_size_limit: 10_485_760,
    });
    return { id, token };
  }
}

export async function startFakeDiscord(options: GatewayOptions = {}): Promise<FakeDiscord> {
  return FakeDiscord.start(options);
}

/** MESSAGE_CREATE's `member` leaves out the user, who is the author. */
function memberWithoutUser(author: FakeDiscordUser, roles: string[]) {
  const { user: _user, ...member } = memberPayload(author, roles);
  return member;
}
