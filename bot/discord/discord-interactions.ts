// /ops, button clicks and the deny form: acknowledged at once, answered privately through the interaction
// webhook while its token lives (15 minutes), and in the conversation with the bot token once it is dead.
// Nothing here throws.
import {
  ChatInputCommandInteraction,
  type Interaction,
  MessageFlags,
  type RepliableInteraction,
} from 'discord.js';
import type { Clock } from '../../agent/clock.js';
import type { Conversation } from '../../agent/conversation.js';
import { errorMessage } from '../../agent/errors.js';
import type { Logger } from '../../agent/logger.js';
import type { PermissionSettings } from '../../agent/policy/permission-settings.js';
import { actionFromButton } from '../chat/chat-event.js';
import type { ChatEventHandler, EventIntake } from '../chat/event-intake.js';
import type { DiscordChatPort } from './discord-chat-port.js';
import { showDenyModal } from './discord-deny-modal.js';
import { discordPrincipal } from './discord-identity.js';
import type { IncomingDiscordInteraction } from './discord-normalize.js';

/** An interaction token works for 15 minutes after the interaction was created. */
export const INTERACTION_TOKEN_MS = 15 * 60_000;
/** Kept back for the time the interaction took to reach us, so a webhook call never races the deadline. */
const TOKEN_MARGIN_MS = 30_000;
/** Unknown Webhook, Invalid Webhook Token, Unknown Interaction: the token is dead whatever our clock says. */
const DEAD_TOKEN_CODES = new Set([10015, 50027, 10062]);

export const TASK_ACCEPTED = 'On it: the answer comes in the thread under the task.';

/** Said to someone whose command or click came from a server the bot is not in. */
export const NOT_IN_GUILD =
  'opsbot is not a member of this server, so it takes no commands or clicks from it: nothing was done.';

interface ReplyContext {
  port: Pick<DiscordChatPort, 'post'>;
  clock: Clock;
  logger: Logger;
}

/** One interaction's private answers; when its token is dead, those that matter go to the conversation instead. */
export class InteractionReplies {
  private readonly receivedAt: number;

  constructor(
    private readonly interaction: RepliableInteraction,
    private readonly conversation: Conversation,
    /** How the public fallback names the person it answers (never a ping). */
    private readonly person: string,
    private readonly context: ReplyContext,
  ) {
    this.receivedAt = context.clock.now();
  }

  /** True once the token is too old to use (Discord would answer 50027). */
  expired(): boolean {
    return this.context.clock.now() - this.receivedAt >= INTERACTION_TOKEN_MS - TOKEN_MARGIN_MS;
  }

  /** Replaces the deferred reply; `public` is what to post in the conversation if the token is dead. */
  async edit(content: string, fallback: 'public' | 'drop'): Promise<void> {
    await this.send('edit the reply', content, fallback, () =>
      this.interaction.editReply({ content: content.slice(0, 2000), allowedMentions: { parse: [] } }),
    );
  }

  /** A new private message under the interaction. */
  async followUp(content: string, fallback: 'public' | 'drop'): Promise<void> {
    await this.send('follow up', content, fallback, () =>
      this.interaction.followUp({
        content: content.slice(0, 2000),
        flags: MessageFlags.Ephemeral,
        allowedMentions: { parse: [] },
      }),
    );
  }

  private async send(
    what: string,
    content: string,
    fallback: 'public' | 'drop',
    call: () => Promise<unknown>,
  ): Promise<void> {
    const { logger } = this.context;
    if (!this.expired()) {
      try {
        await call();
        return;
      } catch (error) {
        if (!DEAD_TOKEN_CODES.has(Number((error as { code?: unknown }).code))) {
          logger.warn({ err: errorMessage(error), interaction: this.interaction.id }, `could not ${what}`);
          return;
        }
      }
    }
    logger.warn(
      { interaction: this.interaction.id, fallback },
      `could not ${what}: the interaction token is past its 15 minutes${fallback === 'public' ? '; posting in the conversation instead' : ''}`,
    );
    if (fallback === 'drop') return;
    await this.context.port
      .post(this.conversation, { kind: 'text', text: `For ${this.person}: ${content}`, tone: 'info' })
      .catch((error) =>
        logger.warn({ err: errorMessage(error) }, 'could not post an interaction answer in the conversation'),
      );
  }
}

export interface InteractionHandlerOptions extends ReplyContext {
  intake: EventIntake;
  permissions: PermissionSettings;
  /** An interaction's channel as a conversation (a thread is its parent's thread), in its guild. */
  conversationOf: (channelId: string, guildId?: string) => Conversation;
  /** Whether the bot is a member of this guild (the client's guild cache, filled by the gateway). */
  botInGuild: (guildId: string) => boolean;
  /** Closes a deferred reply once the router handled its command with no private answer (a task). */
  deferredReplies: DeferredTaskReplies;
}

/** Acknowledges an interaction within Discord's 3 s and hands it to the chat intake. */
export async function receiveInteraction(
  interaction: Interaction,
  incoming: IncomingDiscordInteraction,
  options: InteractionHandlerOptions,
): Promise<void> {
  if (!interaction.isRepliable()) return;
  const { intake, logger } = options;
  if (incoming.guildId !== undefined && !options.botInGuild(incoming.guildId)) {
    // A user-installed app is sent interactions from any server its user is in; the bot takes none from those.
    logger.warn(
      { guildId: incoming.guildId, interaction: interaction.id },
      'refused an interaction from a guild the bot is not in',
    );
    await interaction
      .reply({ content: NOT_IN_GUILD, flags: MessageFlags.Ephemeral, allowedMentions: { parse: [] } })
      .catch((error) => logger.warn({ err: errorMessage(error) }, 'could not refuse an interaction'));
    return;
  }
  const principal = discordPrincipal(options.permissions, incoming.author, incoming.member);
  const conversation = options.conversationOf(incoming.channelId, incoming.guildId);
  const replies = new InteractionReplies(interaction, conversation, principal.displayName, options);
  const ack = (what: string, call: () => Promise<unknown>) => async () => {
    // A late or repeated ack is logged; the work still runs, and its answers find their way (see above).
    await call().catch((error) =>
      logger.warn({ err: errorMessage(error), interaction: interaction.id }, `could not ${what}`),
    );
  };
  if (incoming.input.kind === 'button') {
    const { intent, tool } = incoming.input;
    // Deny asks for an optional reason first; the form comes back as its own interaction (below).
    if (intent.action === 'deny' && interaction.isButton()) {
      const shown = await showDenyModal(interaction, { approvalId: intent.approvalId, tool }, logger);
      if (shown !== 'failed') return;
    }
    const action = actionFromButton(intent);
    await intake.receive({
      name: 'button',
      // The run updates the card in place, so the click itself shows nothing new.
      ack: ack('acknowledge a click', async () => {
        if (interaction.isButton()) await interaction.deferUpdate();
      }),
      // The message the button was on, as Discord says: a card whose approval is gone is closed there.
      build: async () => ({
        kind: 'action',
        eventId: incoming.eventId,
        principal,
        conversation,
        ...action,
        ...(interaction.isButton() ? { messageId: interaction.message.id } : {}),
      }),
      reply: (text) => replies.followUp(text, 'public'),
    });
    return;
  }
  if (incoming.input.kind === 'deny_reason') {
    const { approvalId, reason } = incoming.input;
    await intake.receive({
      name: 'deny reason',
      // Like a click: the card is updated in place; a form not sent from a card gets a private "thinking".
      ack: ack('acknowledge a deny form', async () => {
        if (!interaction.isModalSubmit()) return;
        if (interaction.isFromMessage()) await interaction.deferUpdate();
        else await interaction.deferReply({ flags: MessageFlags.Ephemeral });
      }),
      build: async () => ({
        kind: 'action',
        eventId: incoming.eventId,
        principal,
        conversation,
        action: 'deny',
        target: approvalId,
        ...(reason !== undefined ? { reason } : {}),
        ...(interaction.isModalSubmit() && interaction.isFromMessage()
          ? { messageId: interaction.message.id }
          : {}),
      }),
      reply: (text) => replies.followUp(text, 'public'),
    });
    return;
  }
  const { text } = incoming.input;
  // A task gets no private answer: the deferred reply says where the work goes, so it does not hang.
  options.deferredReplies.add(incoming.eventId, () => replies.edit(TASK_ACCEPTED, 'drop'));
  await intake.receive({
    name: 'slash command',
    ack: ack('defer a reply', async () => {
      if (interaction instanceof ChatInputCommandInteraction)
        await interaction.deferReply({ flags: MessageFlags.Ephemeral });
    }),
    build: async () => ({ kind: 'command', eventId: incoming.eventId, principal, conversation, text }),
    reply: (answer) => replies.edit(answer, 'public'),
  });
}

/**
 * Deferred `/ops` replies waiting for the router's verdict. An entry the router never sees (a redelivered,
 * deduped interaction) is dropped once its token is dead, so the map cannot grow without bound.
 */
export class DeferredTaskReplies {
  private readonly waiting = new Map<string, { close: () => Promise<void>; at: number }>();

  constructor(private readonly clock: Clock) {}

  add(eventId: string, close: () => Promise<void>): void {
    const now = this.clock.now();
    for (const [key, entry] of this.waiting)
      if (now - entry.at >= INTERACTION_TOKEN_MS) this.waiting.delete(key);
    if (!this.waiting.has(eventId)) this.waiting.set(eventId, { close, at: now });
  }

  take(eventId: string): (() => Promise<void>) | undefined {
    const entry = this.waiting.get(eventId);
    this.waiting.delete(eventId);
    return entry?.close;
  }

  get size(): number {
    return this.waiting.size;
  }
}

/**
 * The router, plus one step after a command it answered with nothing private (a task started in the channel):
 * the deferred reply is closed with a note. Commands with an answer get it through the intake's reply.
 */
export function closeTaskReplies(router: ChatEventHandler, deferred: DeferredTaskReplies): ChatEventHandler {
  return {
    async handle(event) {
      const close = event.kind === 'command' ? deferred.take(event.eventId) : undefined;
      const reply = await router.handle(event);
      if (close && reply.ephemeral === undefined) await close();
      return reply;
    },
  };
}
