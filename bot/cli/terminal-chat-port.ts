// A ChatPort that prints to the terminal: the CLI's "channel".
import type { ChatPort, MessageRef, OutboundMessage, PlanChecklistMessage } from '../../agent/chat-port.js';
import type { Conversation } from '../../agent/conversation.js';
import { MODEL_RETRY_WORDS } from '../../agent/model/model-retry.js';
import { dim, formatMessage, formatPlan } from './terminal-output.js';

export class TerminalChatPort implements ChatPort {
  private next = 0;
  /** Each plan checklist as last printed, by message id: an update prints only what changed. */
  private readonly plans = new Map<string, PlanChecklistMessage>();

  /** `write` is the CLI's stdout (a TerminalStream), so nothing posted here bypasses its escaping. */
  constructor(private readonly write: (line: string) => void) {}

  async post(conversation: Conversation, message: OutboundMessage): Promise<MessageRef> {
    this.progress(message);
    const text = formatMessage(message);
    if (text !== undefined) this.write(text);
    const messageId = `terminal-${++this.next}`;
    if (message.kind === 'plan') this.plans.set(messageId, message);
    return { conversation, messageId };
  }

  async update(ref: MessageRef, message: OutboundMessage): Promise<void> {
    this.progress(message);
    if (message.kind === 'plan') return this.planChanged(ref.messageId, message);
    if (message.kind === 'approval' && message.decision) {
      const text = formatMessage(message);
      if (text !== undefined) this.write(text);
    }
  }

  /**
   * A new plan is printed whole; otherwise only the steps that were skipped, since the steps' results are
   * printed as they happen (their tool lines) and a reprint of the list on every update would drown them.
   */
  private planChanged(messageId: string, message: PlanChecklistMessage): void {
    const before = this.plans.get(messageId);
    this.plans.set(messageId, message);
    if (!before || before.round !== message.round) {
      this.write(formatPlan(message));
      return;
    }
    const skipped = message.steps.filter(
      (step) =>
        step.state === 'skipped' &&
        before.steps.find((old) => old.number === step.number)?.state !== 'skipped',
    );
    if (skipped.length > 0) this.write(formatPlan(message, skipped));
  }

  /** The terminal has no status line; a model being retried is still said, so a slow model is not silence. */
  private progress(message: OutboundMessage): void {
    if (message.kind === 'status' && message.text.startsWith(MODEL_RETRY_WORDS))
      this.write(dim(`  … ${message.text}`));
  }
}
