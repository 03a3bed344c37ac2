// A ChatPort that prints to the terminal: the CLI's "channel".
import type { ChatPort, MessageRef, OutboundMessage } from '../../agent/chat-port.js';
import type { Conversation } from '../../agent/conversation.js';
import { formatMessage } from './terminal-output.js';

export class TerminalChatPort implements ChatPort {
  private next = 0;

  constructor(private readonly write: (line: string) => void = (line) => process.stdout.write(`${line}\n`)) {}

  async post(conversation: Conversation, message: OutboundMessage): Promise<MessageRef> {
    const text = formatMessage(message);
    if (text !== undefined) this.write(text);
    return { conversation, messageId: `terminal-${++this.next}` };
  }

  async update(_ref: MessageRef, message: OutboundMessage): Promise<void> {
    if (message.kind === 'approval' && message.decision) {
      const text = formatMessage(message);
      if (text !== undefined) this.write(text);
    }
  }
}
