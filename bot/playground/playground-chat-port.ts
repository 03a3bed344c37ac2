// The playground's ChatPort: every post and update is saved in the playground store, which streams it to browsers.
import type { ChatPort, MessageRef, OutboundMessage } from '../../agent/chat-port.js';
import type { Conversation } from '../../agent/conversation.js';
import { CHANNEL_NAME, type PlaygroundStore } from './playground-store.js';

export class PlaygroundChatPort implements ChatPort {
  constructor(
    private readonly store: PlaygroundStore,
    private readonly botName: string,
  ) {}

  async post(conversation: Conversation, message: OutboundMessage): Promise<MessageRef> {
    const channelId = await this.channelFor(conversation);
    const saved = await this.store.post({
      channelId,
      threadId: conversation.threadId,
      author: { kind: 'bot', name: this.botName },
      content: message,
    });
    return { conversation, messageId: saved.id };
  }

  async update(ref: MessageRef, message: OutboundMessage): Promise<void> {
    const updated = await this.store.update(ref.messageId, (current) => ({ ...current, content: message }));
    if (!updated) throw new Error(`There is no playground message ${ref.messageId} to update`);
  }

  /** A run may post to a channel nobody opened yet (a patrol's channel): it appears in the sidebar. */
  private async channelFor(conversation: Conversation): Promise<string> {
    if (conversation.platform !== 'playground') {
      throw new Error(`The playground cannot post to a ${conversation.platform} conversation`);
    }
    const id = conversation.channelId;
    if (await this.store.channel(id)) return id;
    if (!CHANNEL_NAME.test(id)) throw new Error(`There is no playground channel ${id}`);
    await this.store.ensureChannel(id);
    return id;
  }
}
