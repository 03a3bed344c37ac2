// Post keys: each message a run posts is named by the run and the transition that caused it, and kept in the
// Store with the message it became, so that a run stepped again after its worker died reuses that message
// instead of posting it twice. A rare duplicate is accepted (a crash between the post and its record); a lost
// message is not: when the Store cannot say, the message is posted anyway, and while the Store is unreachable
// its record is tried again until it returns, since the run's next save waits for it anyway.
import { createHash } from 'node:crypto';
import type { ChatPort, MessageRef, OutboundMessage } from './chat-port.js';
import type { Conversation } from './conversation.js';
import { errorMessage, isStoreUnavailable } from './errors.js';
import type { Logger } from './logger.js';
import { isTerminal, type Run } from './run.js';
import { stableJson } from './stable-json.js';
import type { Store } from './store/store.js';
import { storeKeys } from './store/store-keys.js';

/**
 * How long a record is kept. It is read only until the run's next save moves past the transition that posted,
 * so a few days cover a run stepped again after a long outage.
 */
export const POST_RECORD_TTL_MS = 3 * 24 * 3_600_000;

/**
 * How long a post's record is tried again while the Store is unreachable (a Redis restart). Given up sooner, the
 * run, stepped again from its last save once the Store is back, would post the same message a second time.
 */
export const POST_RECORD_PATIENCE_MS = 30_000;
const RECORD_RETRY_MAX_MS = 1_000;

/** The key of the run's one status line: whatever step posts it first, a run has one. */
export const STATUS_POST = 'status';

export interface PostRecord {
  messageId: string;
  /** A hash of what the message says; absent for the status line, which is edited after it is recorded. */
  hash?: string;
}

/**
 * The key of the `index`-th effect of a transition that left the run as `run`. A run stepped again from its
 * last save makes the same transitions, so the same keys. A run ends once: what its end posts is keyed by the
 * end alone, whatever steps the run took to get there the second time.
 */
export function postKey(run: Run, index: number): string {
  return isTerminal(run.status) ? `end:${index}` : `${run.step}:${run.events.length}:${index}`;
}

export function messageHash(message: OutboundMessage): string {
  return createHash('sha256').update(stableJson(message)).digest('base64url').slice(0, 22);
}

export class PostLedger {
  constructor(
    private readonly store: Store,
    private readonly logger: Logger,
    private readonly ttlMs = POST_RECORD_TTL_MS,
    private readonly patienceMs = POST_RECORD_PATIENCE_MS,
    /** How a retry waits (tests wait no real time). */
    private readonly sleep: (ms: number) => Promise<void> = realSleep,
  ) {}

  /**
   * Posts `message` (already redacted) once under `key`. A message recorded under the key is reused: left as
   * it is when it says the same, updated in place when it does not (a model that answered differently the
   * second time). Otherwise the message is posted, then recorded. One Store read, and a write after a post.
   * Throws only what the chat platform throws.
   */
  async post(
    chat: ChatPort,
    runId: string,
    conversation: Conversation,
    key: string,
    message: OutboundMessage,
  ): Promise<MessageRef> {
    const hash = key === STATUS_POST ? undefined : messageHash(message);
    const earlier = await this.find(runId, key);
    if (earlier) {
      const ref: MessageRef = { conversation, messageId: earlier.messageId };
      if (hash !== undefined && earlier.hash === hash) return ref;
      try {
        await chat.update(ref, message);
        if (hash !== undefined) await this.record(runId, key, { messageId: earlier.messageId, hash });
        return ref;
      } catch (error) {
        // The earlier message may be gone: a second message beats none.
        this.logger.warn(
          { runId, key, err: errorMessage(error) },
          'could not update the message posted before the run was stepped again; posting it anew',
        );
      }
    }
    const ref = await chat.post(conversation, message);
    await this.record(runId, key, { messageId: ref.messageId, ...(hash !== undefined ? { hash } : {}) });
    return ref;
  }

  /** The message posted earlier under the key; undefined when none, or when the Store could not say (logged). */
  private async find(runId: string, key: string): Promise<PostRecord | undefined> {
    try {
      return await this.store.get<PostRecord>(storeKeys.runPost(runId, key));
    } catch (error) {
      this.logger.warn(
        { runId, key, err: errorMessage(error) },
        'could not read whether a message was posted already; posting it',
      );
      return undefined;
    }
  }

  /**
   * A record that cannot be written is logged: the message is out, and only a crash now could repeat it. While
   * the Store is unreachable the write is tried again, for up to `patienceMs`.
   */
  private async record(runId: string, key: string, record: PostRecord): Promise<void> {
    // Patience is counted in the time waited between attempts, so no clock is read.
    let waitedMs = 0;
    for (let attempt = 0; ; attempt++) {
      try {
        await this.store.set(storeKeys.runPost(runId, key), record, this.ttlMs);
        if (attempt > 0)
          this.logger.info({ runId, key }, 'recorded a posted message once the store was back');
        return;
      } catch (error) {
        if (!isStoreUnavailable(error) || waitedMs >= this.patienceMs) {
          this.logger.warn(
            { runId, key, err: errorMessage(error) },
            'could not record a posted message; a run stepped again after a crash may post it twice',
          );
          return;
        }
        if (attempt === 0)
          this.logger.warn(
            { runId, key, err: errorMessage(error) },
            'the store is unreachable; waiting for it to record a posted message, so that it is not posted twice',
          );
        const delayMs = Math.min(100 * 2 ** attempt, RECORD_RETRY_MAX_MS);
        waitedMs += delayMs;
        await this.sleep(delayMs);
      }
    }
  }
}

function realSleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
