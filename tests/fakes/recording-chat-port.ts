// A ChatPort that records every post and update in memory, for tests that check what people would see.
import type { ChatPort, MessageRef, OutboundMessage } from '../../agent/chat-port.js';
import type { Conversation } from '../../agent/conversation.js';

export interface RecordedPost {
  messageId: string;
  conversation: Conversation;
  message: OutboundMessage;
  updates: OutboundMessage[];
}

export class RecordingChatPort implements ChatPort {
  readonly posts: RecordedPost[] = [];
  private next = 0;
  /** Make the next N posts throw, to test that a failed post loses nothing. */
  failNextPosts = 0;
  /** Make the next N posts into a thread throw, while posts to channels go through. */
  failNextThreadPosts = 0;

  async post(conversation: Conversation, message: OutboundMessage): Promise<MessageRef> {
    if (this.failNextPosts > 0) {
      this.failNextPosts -= 1;
      throw new Error('chat platform unavailable');
    }
    if (conversation.threadId !== undefined && this.failNextThreadPosts > 0) {
      this.failNextThreadPosts -= 1;
      throw new Error('chat platform unavailable');
    }
    const messageId = `m${++this.next}`;
    this.posts.push({ messageId, conversation, message, updates: [] });
    return { conversation, messageId };
  }

  async update(ref: MessageRef, message: OutboundMessage): Promise<void> {
    const post = this.posts.find((entry) => entry.messageId === ref.messageId);
    if (!post) throw new Error(`no message ${ref.messageId}`);
    post.updates.push(message);
  }

  /** Messages of one kind, as last updated. */
  ofKind<K extends OutboundMessage['kind']>(kind: K): Extract<OutboundMessage, { kind: K }>[] {
    return this.posts
      .map((post) => post.updates.at(-1) ?? post.message)
      .filter((message): message is Extract<OutboundMessage, { kind: K }> => message.kind === kind);
  }

  texts(): string[] {
    return this.posts.map((post) => {
      const message = post.updates.at(-1) ?? post.message;
      return 'text' in message ? message.text : message.kind === 'question' ? message.question : message.kind;
    });
  }
}
