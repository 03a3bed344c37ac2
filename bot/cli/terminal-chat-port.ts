// A ChatPort that prints to the terminal: the CLI's "channel".
import type { ChatPort, MessageRef, OutboundMessage } from '../../agent/chat-port.js';
import type { Conversation } from '../../agent/conversation.js';
import { MODEL_RETRY_WORDS } from '../../agent/model/model-retry.js';
import { dim, formatMessage } from './terminal-output.js';

export class TerminalChatPort implements ChatPort {
  private next = 0;

  /** `write` is the CLI's stdout (a TerminalStream), so nothing posted here bypasses its escaping. */
  constructor(private readonly write: (line: string) => void) {}

  async post(conversation: Conversation, message: OutboundMessage): Promise<MessageRef> {
    this.progress(message);
    const text = formatMessage(message);
    if (text !== undefined) this.write(text);
    return { conversation, messageId: `terminal-${++this.next}` };
  }

  async update(_ref: MessageRef, message: OutboundMessage): Promise<void> {
    this.progress(message);
    if (message.kind === 'approval' && message.decision) {
      const text = formatMessage(message);
      if (text !== undefined) this.write(text);
    }
  }

  /** The terminal has no status line; a model being retried is still said, so a slow model is not silence. */
  private progress(message: OutboundMessage): void {
    if (message.kind === 'status' && message.text.startsWith(MODEL_RETRY_WORDS))
      this.write(dim(`  … ${message.text}`));
  }
}
