// Posts a run's messages to its conversation; a failure to post is logged and recorded, never retried as an action.
import type { ChatPort, MessageRef, MessageTone, OutboundMessage } from './chat-port.js';
import type { Clock } from './clock.js';
import { errorMessage } from './errors.js';
import type { Logger } from './logger.js';
import type { Redactor } from './redaction.js';
import type { Run } from './run.js';

export class RunNotifier {
  constructor(
    private readonly chat: ChatPort,
    private readonly redactor: Redactor,
    private readonly clock: Clock,
    private readonly logger: Logger,
  ) {}

  async post(run: Run, message: OutboundMessage): Promise<MessageRef | undefined> {
    try {
      return await this.chat.post(run.conversation, this.redactor.redactValue(message));
    } catch (error) {
      this.recordFailure(run, 'post', error);
      return undefined;
    }
  }

  async update(run: Run, messageId: string, message: OutboundMessage): Promise<void> {
    try {
      await this.chat.update(
        { conversation: run.conversation, messageId },
        this.redactor.redactValue(message),
      );
    } catch (error) {
      this.recordFailure(run, 'update', error);
    }
  }

  /** Shows or updates the one status line of a run: working, waiting, done or failed. */
  async status(run: Run, text: string, tone: MessageTone): Promise<void> {
    const message: OutboundMessage = { kind: 'status', runId: run.id, text, tone };
    if (run.statusMessageId) {
      await this.update(run, run.statusMessageId, message);
      return;
    }
    const ref = await this.post(run, message);
    if (ref) run.statusMessageId = ref.messageId;
  }

  private recordFailure(run: Run, action: string, error: unknown): void {
    const text = this.redactor.redact(errorMessage(error));
    this.logger.warn({ runId: run.id, err: text }, `could not ${action} a chat message`);
    run.events.push({
      type: 'post_failed',
      at: this.clock.now(),
      step: run.step,
      message: `${action}: ${text}`,
    });
  }
}
