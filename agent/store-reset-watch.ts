// Notices a store reset (its epoch gone or changed: Redis FLUSHALL, a replaced SQLite file) and says so where it
// matters: once in each thread where this process saw a run waiting for a person, whose card it closes. Runs this
// process never saw waiting (those only another replica stepped) are not known here; that replica says so there.
import type { MessageRef, OutboundMessage } from './chat-port.js';
import { type Conversation, conversationKey, shownInChat } from './conversation.js';
import { errorMessage } from './errors.js';
import type { Logger } from './logger.js';
import type { Run } from './run.js';
import type { RunListener } from './run-listeners.js';
import type { Store } from './store/store.js';
import type { EpochCheck, StoreEpoch } from './store/store-epoch.js';
import { storeKeys } from './store/store-keys.js';
import type { Timers } from './timers.js';

/** What a card whose approval or question no longer exists says, on every platform. */
export const GONE_CARD_TEXT = 'This request is gone (the store was reset, or it expired).';
export const LOST_STATE_TEXT =
  'I lost my state: my store was reset (emptied), so the request waiting here is gone and nothing of it will run. Ask again if it is still needed.';

/** Said once per thread per reset: long enough for every replica to have checked. */
const NOTICE_HOLD_MS = 86_400_000;

export interface StoreResetWatchOptions {
  epoch: StoreEpoch;
  /** Where a replica claims a thread's notice, so that only one says it. */
  store: Pick<Store, 'claim'>;
  kernel: {
    onRunChange(listener: RunListener): () => void;
    notify(conversation: Conversation, message: OutboundMessage): Promise<MessageRef>;
    replace(ref: MessageRef, message: OutboundMessage): Promise<void>;
  };
  logger: Logger;
  timers: Timers;
  /** How often the epoch is read when nothing else checks it. */
  intervalMs: number;
}

/** A run waiting for a person, as this process last saw it: its thread and the messages to close. */
interface OpenWait {
  conversation: Conversation;
  cards: string[];
}

export class StoreResetWatch {
  private readonly open = new Map<string, OpenWait>();
  private unsubscribe: (() => void) | undefined;
  private timer: unknown;
  private checking: Promise<EpochCheck> | undefined;

  constructor(private readonly options: StoreResetWatchOptions) {}

  async start(): Promise<void> {
    this.unsubscribe = this.options.kernel.onRunChange((run) => this.saw(run));
    await this.options.epoch.start();
    this.schedule();
  }

  stop(): void {
    this.unsubscribe?.();
    this.options.timers.clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** Reads the epoch (the timer, and a click on an approval that is not there, call it); concurrent calls share one. */
  check(): Promise<EpochCheck> {
    this.checking ??= this.options.epoch
      .check()
      .then(async (result) => {
        if (result.reset) await this.announce(result.epoch, result.previous);
        return result;
      })
      .finally(() => {
        this.checking = undefined;
      });
    return this.checking;
  }

  private schedule(): void {
    this.timer = this.options.timers.setTimeout(() => {
      this.check()
        .catch((error) =>
          this.options.logger.warn({ err: errorMessage(error) }, 'could not read the store epoch'),
        )
        .finally(() => {
          if (this.timer !== undefined) this.schedule();
        });
    }, this.options.intervalMs);
  }

  private saw(run: Run): void {
    const cards =
      run.status === 'waiting_for_approval'
        ? [run.approval.cardMessageId]
        : run.status === 'waiting_for_user'
          ? [run.question.messageId]
          : undefined;
    if (!cards || !shownInChat(run.conversation)) {
      this.open.delete(run.id);
      return;
    }
    const ids = cards.filter((id): id is string => id !== undefined);
    this.open.set(run.id, { conversation: run.conversation, cards: ids });
  }

  private async announce(epoch: string, previous: string): Promise<void> {
    const waits = [...this.open.values()];
    this.open.clear();
    this.options.logger.error(
      { previousEpoch: previous, epoch, threads: waits.length },
      'the store was reset (its epoch is gone or changed): every run, approval and question in it is lost',
    );
    const threads = new Map<string, OpenWait[]>();
    for (const wait of waits) {
      const key = conversationKey(wait.conversation);
      threads.set(key, [...(threads.get(key) ?? []), wait]);
    }
    for (const inThread of threads.values()) {
      const conversation = inThread[0]!.conversation;
      try {
        await this.tell(epoch, conversation, inThread);
      } catch (error) {
        this.options.logger.warn(
          { err: errorMessage(error), thread: conversationKey(conversation) },
          'could not say in a thread that the store was reset',
        );
      }
    }
  }

  private async tell(epoch: string, conversation: Conversation, waits: OpenWait[]): Promise<void> {
    const { store, kernel } = this.options;
    // Another replica that saw the same thread may have said it already.
    if (!(await store.claim(storeKeys.storeResetNotice(epoch, conversation), epoch, NOTICE_HOLD_MS))) return;
    for (const messageId of waits.flatMap((wait) => wait.cards)) {
      // A card that cannot be rewritten (deleted in the meantime) keeps neither the others nor the notice back.
      await kernel
        .replace({ conversation, messageId }, { kind: 'text', text: GONE_CARD_TEXT, tone: 'warning' })
        .catch((error) =>
          this.options.logger.warn({ err: errorMessage(error), messageId }, 'could not close a card'),
        );
    }
    await kernel.notify(conversation, { kind: 'text', text: LOST_STATE_TEXT, tone: 'error' });
  }
}
