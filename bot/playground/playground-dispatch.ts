// Turns what people do on the page into ChatEvents for the router, in the background, and routes its replies back.
import { randomBytes } from 'node:crypto';
import type { Conversation } from '../../agent/conversation.js';
import { errorMessage } from '../../agent/errors.js';
import type { Logger } from '../../agent/logger.js';
import type { ChatEvent, RouterReply } from '../chat-event.js';
import type { PermissionSettings } from '../config/settings-schema.js';
import { HttpError } from '../http/http-json.js';
import type { Ephemeral, PlaygroundEvents } from './playground-events.js';
import type { PlaygroundChannel, PlaygroundMessage, PlaygroundStore } from './playground-store.js';
import { playgroundPrincipal, playgroundUsers } from './playground-users.js';

/** The router's one method the playground needs; the real Router satisfies it. */
export interface EventHandler {
  handle(event: ChatEvent): Promise<RouterReply>;
}

export interface PlaygroundDispatcherOptions {
  router: EventHandler;
  store: PlaygroundStore;
  events: PlaygroundEvents;
  permissions: PermissionSettings;
  logger: Logger;
  botName: string;
  /** What people type for router commands, e.g. `/ops help`. */
  slashCommand: string;
}

export interface PostInput {
  user: string;
  channelId: string;
  text: string;
  threadId?: string | undefined;
  clientId: string;
}

export interface ActionInput {
  user: string;
  messageId: string;
  action: 'approve' | 'deny' | 'answer';
  target: string;
  value?: string | undefined;
  clientId: string;
}

export class PlaygroundDispatcher {
  private readonly inFlight = new Set<Promise<void>>();
  private readonly mention: RegExp;

  constructor(private readonly options: PlaygroundDispatcherOptions) {
    const name = options.botName.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    this.mention = new RegExp(`(^|\\s)@${name}\\b[:,]?`, 'gi');
  }

  /**
   * Saves a person's message and hands it to the router when it is for the bot: a mention, any reply in a thread,
   * or a slash command (which is not shown in the channel, as in Slack).
   */
  async post(input: PostInput): Promise<{ message?: PlaygroundMessage; routed: boolean }> {
    const channel = await this.channel(input.channelId);
    const principal = this.principal(input.user);
    const place = { channelId: channel.id, ...(input.threadId ? { threadId: input.threadId } : {}) };
    if (input.threadId) await this.threadRoot(channel, input.threadId);

    const slash = /^\/([\w-]+)(?:\s+([\s\S]*))?$/.exec(input.text.trim());
    if (slash) {
      if (`/${slash[1]}` !== this.options.slashCommand) {
        throw new HttpError(
          400,
          `There is no /${slash[1]} command here; try ${this.options.slashCommand} help.`,
        );
      }
      const conversation = this.conversation(channel);
      const event: ChatEvent = {
        kind: 'command',
        eventId: eventId('cmd'),
        principal,
        conversation,
        text: (slash[2] ?? '').trim(),
      };
      this.dispatch(event, input.clientId, input.user, place);
      return { routed: true };
    }

    const message = await this.options.store.post({
      channelId: channel.id,
      threadId: input.threadId,
      author: {
        kind: 'user',
        userId: input.user,
        displayName: principal.displayName,
        roles: principal.roles,
      },
      content: { kind: 'user_text', text: input.text },
    });
    const mentioned = this.mention.test(input.text);
    this.mention.lastIndex = 0;
    if (!mentioned && !input.threadId) return { message, routed: false };
    // A mention in the channel starts a thread on that message, as the bot answers in Slack.
    const event: ChatEvent = {
      kind: 'message',
      eventId: `pg_${message.id}`,
      principal,
      conversation: this.conversation(channel, input.threadId ?? message.id),
      text: input.text.replace(this.mention, '$1').trim(),
      mentioned,
      direct: false,
    };
    this.dispatch(event, input.clientId, input.user, place);
    return { message, routed: true };
  }

  /** A button: Approve or Deny on an approval card, or a choice on a question. */
  async act(input: ActionInput): Promise<void> {
    const message = await this.options.store.message(input.messageId);
    if (!message) throw new HttpError(404, `There is no message ${input.messageId}.`);
    const content = message.content;
    const expected =
      content.kind === 'approval' && input.action !== 'answer'
        ? content.approvalId
        : content.kind === 'question' && input.action === 'answer'
          ? content.runId
          : undefined;
    if (expected !== input.target) {
      throw new HttpError(
        400,
        `Message ${input.messageId} has no "${input.action}" button for ${input.target}.`,
      );
    }
    const channel = await this.channel(message.channelId);
    const event: ChatEvent = {
      kind: 'action',
      eventId: eventId('act'),
      principal: this.principal(input.user),
      conversation: this.conversation(channel, message.threadId),
      action: input.action,
      target: input.target,
      ...(input.value === undefined ? {} : { value: input.value }),
    };
    this.dispatch(event, input.clientId, input.user, {
      channelId: channel.id,
      ...(message.threadId ? { threadId: message.threadId } : {}),
    });
  }

  /** Resolves when every event handed to the router so far has been handled (shutdown, tests). */
  async idle(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
  }

  // The HTTP answer does not wait: the router may run the agent for minutes. Its reply arrives over SSE.
  private dispatch(
    event: ChatEvent,
    clientId: string,
    userId: string,
    place: Pick<Ephemeral, 'channelId' | 'threadId'>,
  ): void {
    const tell = (text: string) =>
      this.options.events.ephemeral(clientId, { id: eventId('eph'), userId, text, at: Date.now(), ...place });
    const work = this.options.router
      .handle(event)
      .then((reply) => {
        if (reply.ephemeral) tell(reply.ephemeral);
      })
      .catch((error) => {
        this.options.logger.error(
          { err: errorMessage(error), eventId: event.eventId },
          'a playground event failed',
        );
        tell('Something went wrong on my side; the details are in the bot log.');
      })
      .finally(() => this.inFlight.delete(work));
    this.inFlight.add(work);
  }

  private principal(userId: string) {
    if (!playgroundUsers(this.options.permissions).some((user) => user.id === userId)) {
      throw new HttpError(400, `There is no local user "${userId}" in the settings.`);
    }
    return playgroundPrincipal(this.options.permissions, userId);
  }

  private async channel(channelId: string): Promise<PlaygroundChannel> {
    const channel = await this.options.store.channel(channelId);
    if (!channel) throw new HttpError(404, `There is no channel #${channelId}.`);
    return channel;
  }

  private async threadRoot(channel: PlaygroundChannel, threadId: string): Promise<void> {
    const root = await this.options.store.message(threadId);
    if (!root || root.channelId !== channel.id || root.threadId !== undefined) {
      throw new HttpError(400, `There is no thread ${threadId} in #${channel.name}.`);
    }
  }

  private conversation(channel: PlaygroundChannel, threadId?: string): Conversation {
    return {
      platform: 'playground',
      channelId: channel.id,
      channelName: channel.name,
      ...(threadId ? { threadId } : {}),
    };
  }
}

function eventId(kind: string): string {
  return `pg_${kind}_${randomBytes(8).toString('hex')}`;
}
