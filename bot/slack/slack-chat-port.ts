// The ChatPort for Slack: posts into the conversation's thread, updates in place, and uploads very long output.
import { webApi } from '@slack/bolt';
import type { ChatPort, MessageRef, OutboundMessage } from '../../agent/chat-port.js';
import type { Clock } from '../../agent/clock.js';
import type { Conversation } from '../../agent/conversation.js';
import { CallerError, ErrorCode, errorMessage } from '../../agent/errors.js';
import type { Logger } from '../../agent/logger.js';
import { DELIVERY_BUDGET_MS, deliveryDeadline } from '../chat/delivery-deadline.js';
import { type SlackDelivery, SlackDeliveryError } from './slack-delivery.js';
import {
  type RenderedOutbound,
  renderOutbound,
  type SlackFileSnippet,
  type SlackMessagePayload,
} from './slack-render.js';

export interface SlackChatPortOptions {
  delivery: SlackDelivery;
  clock: Clock;
  logger: Logger;
  /** Characters past which output goes up as a file snippet. */
  fileThreshold?: number;
}

export class SlackChatPort implements ChatPort {
  constructor(private readonly options: SlackChatPortOptions) {}

  async post(conversation: Conversation, message: OutboundMessage): Promise<MessageRef> {
    const channel = slackChannel(conversation);
    const now = this.options.clock.now();
    const deadline = deliveryDeadline(message, now);
    if (deadline <= now) {
      throw new SlackDeliveryError(
        'The approval expires before anyone could act on it, so its card was not posted.',
      );
    }
    const rendered = this.render(message, now);
    let threadTs = conversation.threadId;
    let first: string | undefined;
    for (const part of rendered.messages) {
      const ts = await this.postMessage(channel, threadTs, part, deadline);
      first ??= ts;
      // The rest of a long top-level message goes into its own thread, not across the channel.
      threadTs ??= ts;
    }
    if (rendered.file) await this.upload(channel, threadTs!, rendered.file, deadline);
    return { conversation, messageId: first! };
  }

  async update(ref: MessageRef, message: OutboundMessage): Promise<void> {
    const channel = slackChannel(ref.conversation);
    const now = this.options.clock.now();
    const deadline = Math.max(deliveryDeadline(message, now), now + DELIVERY_BUDGET_MS.status);
    const rendered = this.render(message, now);
    const [first, ...rest] = rendered.messages;
    await this.options.delivery.call(
      'chat.update',
      { channel, ts: ref.messageId, text: first!.text, blocks: first!.blocks },
      deadline,
    );
    const threadTs = ref.conversation.threadId ?? ref.messageId;
    for (const part of rest) await this.postMessage(channel, threadTs, part, deadline);
    if (rendered.file) await this.upload(channel, threadTs, rendered.file, deadline);
  }

  private render(message: OutboundMessage, now: number): RenderedOutbound {
    return renderOutbound(message, {
      now,
      ...(this.options.fileThreshold ? { fileThreshold: this.options.fileThreshold } : {}),
    });
  }

  private async postMessage(
    channel: string,
    threadTs: string | undefined,
    part: SlackMessagePayload,
    deadline: number,
  ): Promise<string> {
    const result = await this.options.delivery
      .call(
        'chat.postMessage',
        {
          channel,
          ...(threadTs ? { thread_ts: threadTs } : {}),
          text: part.text,
          blocks: part.blocks,
          // Our text is already escaped; never let Slack turn names into pings or preview tool URLs.
          link_names: false,
          unfurl_links: false,
          unfurl_media: false,
        },
        deadline,
        channel,
      )
      .catch((error: unknown) => {
        throw explainPostError(error);
      });
    if (typeof result.ts !== 'string') throw new Error('chat.postMessage answered without a message ts');
    return result.ts;
  }

  /** A failed upload leaves the preview in place and says so, rather than failing the whole message. */
  private async upload(channel: string, threadTs: string, file: SlackFileSnippet, deadline: number) {
    try {
      await this.options.delivery.call(
        'files.uploadV2',
        {
          channel_id: channel,
          thread_ts: threadTs,
          content: file.content,
          filename: file.filename,
          title: file.title,
        },
        deadline,
      );
    } catch (error) {
      this.options.logger.warn(
        { channel, err: errorMessage(error) },
        'could not upload long output to Slack',
      );
      await this.postMessage(
        channel,
        threadTs,
        {
          text: 'The full output could not be attached.',
          blocks: [
            {
              type: 'context',
              elements: [
                {
                  type: 'mrkdwn',
                  text: ':warning: The full output could not be attached; see the run trace.',
                },
              ],
            },
          ],
        },
        deadline,
      );
    }
  }
}

/** Errors a person can fix get a CallerError, which the router shows them instead of a generic apology. */
const FIXABLE_POST_ERRORS: Readonly<Record<string, string>> = {
  not_in_channel: 'I am not a member of this channel. Invite me with `/invite @opsbot` and try again.',
  channel_not_found:
    'I cannot see this channel. If it is private, invite me with `/invite @opsbot` and try again.',
  is_archived: 'This channel is archived, so I cannot post in it.',
};

function explainPostError(error: unknown): unknown {
  const code = error instanceof webApi.WebAPIPlatformError ? error.data.error : undefined;
  if (code === undefined || !Object.hasOwn(FIXABLE_POST_ERRORS, code)) return error;
  return new CallerError(ErrorCode.NotAllowed, FIXABLE_POST_ERRORS[code]!, { cause: error });
}

function slackChannel(conversation: Conversation): string {
  if (conversation.platform !== 'slack') {
    throw new Error(`The Slack chat port was asked to post to a ${conversation.platform} conversation`);
  }
  return conversation.channelId;
}
