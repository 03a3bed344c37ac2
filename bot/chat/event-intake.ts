// The platform-neutral half of receiving an event: ack first, then build, validate, dedupe, handle and reply.
import { randomBytes } from 'node:crypto';
import type { z } from 'zod';
import { errorMessage, isStoreUnavailable } from '../../agent/errors.js';
import type { Logger } from '../../agent/logger.js';
import type { Store } from '../../agent/store/store.js';
import { storeKeys } from '../../agent/store/store-keys.js';
import { BackgroundWork } from './background-work.js';
import { type ChatEvent, ChatEventSchema, type RouterReply } from './chat-event.js';
import { neutralizePings } from './neutralize-pings.js';
import { storeFailureReply } from './store-failure-reply.js';

/** The router's one method the intake needs; the real Router satisfies it. */
export interface ChatEventHandler {
  handle(event: ChatEvent): Promise<RouterReply>;
}

export interface EventIntakeOptions {
  store: Pick<Store, 'claim'>;
  handler: ChatEventHandler;
  logger: Logger;
  /** Retries of one delivery are dropped for this long: Slack retries for about 5 minutes. */
  dedupeMs?: number;
}

/** One delivery from a platform, as the adapter hands it over. */
export interface IncomingDelivery {
  /** For logs: `mention`, `slash command`, `button`. */
  name: string;
  /** Acknowledges the delivery to the platform; called first, before any other work. */
  ack?: () => Promise<void>;
  /**
   * Builds the ChatEvent (resolving who the person is may take a network call), or returns undefined for a
   * delivery the adapter decided to ignore. Runs after the ack.
   */
  build: () => Promise<unknown>;
  /** Tells only the person who acted. */
  reply: (text: string) => Promise<void>;
}

export const DEDUPE_MS = 3_600_000;
export const SOMETHING_WENT_WRONG = 'Something went wrong on my side; the details are in the bot log.';
/**
 * Told to the person whose request was acked but could not be taken because the store failed: the platform will
 * not send it again, so only they can. It may have been saved just before the failure, hence "may not".
 */
export const SEND_AGAIN_ADVICE =
  'Your request may not have started; if no answer comes, send it again in a minute.';
export const STORE_UNREACHABLE_REPLY = `I could not take this request: my store is not working right now (the details are in the bot log). ${SEND_AGAIN_ADVICE}`;

export class EventIntake {
  private readonly work: BackgroundWork;
  /** A fresh owner per delivery: a claim by the same owner would count as a refresh, not a duplicate. */
  private readonly owner = `intake_${randomBytes(6).toString('hex')}`;

  constructor(private readonly options: EventIntakeOptions) {
    this.work = new BackgroundWork(options.logger);
  }

  /**
   * Acks, then leaves the rest to run in the background: it resolves as soon as the ack is sent, however long
   * the handler takes, so the platform never waits for a run.
   */
  async receive(delivery: IncomingDelivery): Promise<void> {
    await delivery.ack?.();
    this.work.run(delivery.name, () => this.process(delivery));
  }

  /** Resolves when every delivery received so far has been handled to the end (tests, draining on shutdown). */
  idle(): Promise<void> {
    return this.work.idle();
  }

  /** Deliveries still being handled. */
  get pending(): number {
    return this.work.size;
  }

  private async process(delivery: IncomingDelivery): Promise<void> {
    const { logger } = this.options;
    const candidate = await delivery.build();
    if (candidate === undefined) return;
    const checked = ChatEventSchema.safeParse(candidate);
    if (!checked.success) {
      logger.warn(
        { delivery: delivery.name, problems: describeProblems(checked.error) },
        'a delivery did not normalize to a valid ChatEvent',
      );
      await delivery.reply(invalidEventMessage(checked.error));
      return;
    }
    const event = checked.data;
    const key = storeKeys.chatEvent(event.conversation.platform, event.eventId);
    const delivered = `${this.owner}:${randomBytes(6).toString('hex')}`;
    let first: boolean;
    try {
      first = await this.options.store.claim(key, delivered, this.options.dedupeMs ?? DEDUPE_MS);
    } catch (error) {
      if (!isStoreUnavailable(error)) throw error;
      logger.error({ err: errorMessage(error), eventId: event.eventId }, 'could not take a chat event');
      await delivery.reply(storeFailureReply(error, event) ?? STORE_UNREACHABLE_REPLY);
      return;
    }
    if (!first) {
      logger.info({ eventId: event.eventId }, 'dropped a repeated delivery');
      return;
    }
    let reply: RouterReply;
    try {
      reply = await this.options.handler.handle(event);
    } catch (error) {
      logger.error({ err: errorMessage(error), eventId: event.eventId }, 'could not handle a chat event');
      reply = { ephemeral: SOMETHING_WENT_WRONG };
    }
    // Replies can quote what people and tools wrote; even a private one must not notify anyone.
    if (reply.ephemeral) await delivery.reply(neutralizePings(reply.ephemeral));
  }
}

/** What the person is told when their request could not be read; it names the fields, never their values. */
export function invalidEventMessage(error: z.ZodError): string {
  return `I could not read that request, so I did nothing with it (${describeProblems(error)}).`;
}

function describeProblems(error: z.ZodError): string {
  return error.issues
    .slice(0, 3)
    .map((issue) => `${issue.path.length > 0 ? `${issue.path.join('.')}: ` : ''}${issue.message}`)
    .join('; ');
}
