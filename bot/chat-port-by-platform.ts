// One ChatPort for the kernel that forwards each message to the adapter of its conversation's platform.
import type { ChatPort, MessageRef, OutboundMessage } from '../agent/chat-port.js';
import type { Conversation } from '../agent/conversation.js';
import type { Platform } from '../agent/principal.js';

/**
 * The kernel is built before the adapters that need it, so adapters register here once they exist: the
 * playground now, Slack and Discord when their tokens are set.
 */
export class ChatPortByPlatform implements ChatPort {
  private readonly ports = new Map<Platform, ChatPort>();

  register(platform: Platform, port: ChatPort): void {
    if (this.ports.has(platform)) throw new Error(`A ChatPort for ${platform} is already registered`);
    this.ports.set(platform, port);
  }

  /** Whether an adapter for the platform is running, so a patrol knows it can post there. */
  has(platform: Platform): boolean {
    return this.ports.has(platform);
  }

  unregister(platform: Platform): void {
    this.ports.delete(platform);
  }

  async post(conversation: Conversation, message: OutboundMessage): Promise<MessageRef> {
    return this.portFor(conversation).post(conversation, message);
  }

  async update(ref: MessageRef, message: OutboundMessage): Promise<void> {
    return this.portFor(ref.conversation).update(ref, message);
  }

  private portFor(conversation: Conversation): ChatPort {
    const port = this.ports.get(conversation.platform);
    // The notifier records this on the run; the run itself goes on.
    if (!port) throw new Error(`No chat adapter for ${conversation.platform} is running`);
    return port;
  }
}
