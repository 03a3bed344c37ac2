// Turns what people do on the page into ChatEvents for the intake, and routes the router's private replies back.
import { randomBytes } from 'node:crypto';
import type { Clock } from '../../agent/clock.js';
import type { Conversation } from '../../agent/conversation.js';
import { type ButtonIntent, decodeButton } from '../chat/button-codec.js';
import { actionFromButton, type ChatEvent } from '../chat/chat-event.js';
import type { EventIntake } from '../chat/event-intake.js';
import type { PermissionSettings } from '../config/settings-schema.js';
import { HttpError } from '../http/http-json.js';
import type { Ephemeral, PlaygroundEvents } from './playground-events.js';
import type { PlaygroundChannel, PlaygroundMessage, PlaygroundStore } from './playground-store.js';
import { playgroundPrincipal, playgroundUsers } from './playground-users.js';

export interface PlaygroundDispatcherOptions {
  intake: Pick<EventIntake, 'receive'>;
  store: PlaygroundStore;
  events: PlaygroundEvents;
  permissions: PermissionSettings;
  clock: Clock;
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
  /** The button's id from the codec, as the page got it in the message's view. */
  button: string;
  clientId: string;
  /** Why, for Deny. */
  reason?: string | undefined;
}

export class PlaygroundDispatcher {
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
      await this.dispatch(event, input.clientId, input.user, place);
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
    await this.dispatch(event, input.clientId, input.user, place);
    return { message, routed: true };
  }

  /** A button: Approve or Deny on an approval card, or a choice on a question. */
  async act(input: ActionInput): Promise<void> {
    const message = await this.options.store.message(input.messageId);
    if (!message) {
      // The playground keeps its messages in the bot's store: an emptied store takes them with it.
      throw new HttpError(
        404,
        'This message is gone: the store was reset (emptied) or the message expired, so this button does nothing. ' +
          'Reload the page to see what is kept, and ask again if it is still needed.',
      );
    }
    const intent = decodeButton(input.button);
    const content = message.content;
    const onMessage = intent !== undefined && buttonBelongsTo(intent, content);
    if (!intent || !onMessage) {
      throw new HttpError(400, `Message ${input.messageId} has no such button.`);
    }
    const channel = await this.channel(message.channelId);
    const event: ChatEvent = {
      kind: 'action',
      eventId: eventId('act'),
      principal: this.principal(input.user),
      conversation: this.conversation(channel, message.threadId),
      ...actionFromButton(intent),
      // The message whose button this is (checked above): a card whose approval is gone is closed there.
      messageId: message.id,
      ...(intent.action === 'deny' && input.reason?.trim() ? { reason: input.reason.trim() } : {}),
    };
    await this.dispatch(event, input.clientId, input.user, {
      channelId: channel.id,
      ...(message.threadId ? { threadId: message.threadId } : {}),
    });
  }

  // The HTTP answer does not wait: the router may take a while. Its private reply arrives over SSE.
  private dispatch(
    event: ChatEvent,
    clientId: string,
    userId: string,
    place: Pick<Ephemeral, 'channelId' | 'threadId'>,
  ): Promise<void> {
    return this.options.intake.receive({
      name: event.kind,
      build: async () => event,
      reply: async (text) =>
        this.options.events.ephemeral(clientId, {
          id: eventId('eph'),
          userId,
          text,
          at: this.options.clock.now(),
          ...place,
        }),
    });
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

/** A click counts only for a button the message itself carries: its own question, approval or report. */
function buttonBelongsTo(intent: ButtonIntent, content: PlaygroundMessage['content']): boolean {
  switch (intent.action) {
    case 'answer':
      return content.kind === 'question' && content.runId === intent.runId;
    case 'approve':
    case 'deny':
      return content.kind === 'approval' && content.approvalId === intent.approvalId;
    case 'alert_ack':
    case 'alert_investigate':
    case 'alert_silence':
      return (
        content.kind === 'alert_group' && content.groupId === intent.groupId && content.buttons !== false
      );
    case 'cancel':
      return (
        (content.kind === 'status' || content.kind === 'question' || content.kind === 'approval') &&
        content.runId === intent.runId
      );
    default:
      return content.kind === 'patrol_report' && content.reportId === intent.reportId && content.buttons;
  }
}
