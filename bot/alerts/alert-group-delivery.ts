// What a group's thread does not show yet, posted: the root, the new group's investigation, the root's edit, and
// the replies, one at a time from the saved record. A failed post is saved with a retry time, and the sweep tries
// it again, so a chat platform that is down delays a post but never loses it. Posting holds the group's delivery
// claim, not its change claim: a notification that arrives meanwhile is stored at once and posted next.
import type { ChatPort } from '../../agent/chat-port.js';
import type { Clock } from '../../agent/clock.js';
import { errorMessage, isStoreUnavailable } from '../../agent/errors.js';
import type { Logger } from '../../agent/logger.js';
import { systemTimers, type Timers } from '../../agent/timers.js';
import { changeMessage, type RootButtonOffers, rootMessage } from './alert-group-messages.js';
import type { AlertGroupRepository } from './alert-group-repository.js';
import {
  type AlertGroupRecord,
  hasPending,
  type PendingDelivery,
  retryAfterFailure,
  settled,
} from './alert-group-state.js';
import { threadOf } from './alert-investigations.js';
import { type AlertDestination, destinationFor } from './alert-routes.js';
import type { AlertSettings } from './alert-settings.js';

/** Starts what a new group gets (an investigation, or its route's checks) and returns its record saying so. */
export type OpenedGroupHook = (
  record: AlertGroupRecord,
  context: { destination: AlertDestination },
) => Promise<AlertGroupRecord>;

export interface DeliveryMetrics {
  alertPostFailed(): void;
}

export interface AlertGroupDeliveryOptions {
  settings: AlertSettings;
  repository: AlertGroupRepository;
  chat: ChatPort;
  clock: Clock;
  logger: Logger;
  timers?: Timers;
  metrics?: DeliveryMetrics;
  onOpened?: OpenedGroupHook;
  /** What the root offers besides Ack, for the group as it stands. */
  buttons: (record: AlertGroupRecord) => RootButtonOffers;
}

/** How often the sweep looks for posts whose retry is due (and for those a crashed process left). */
const SWEEP_MS = 5_000;
const SWEEP_BATCH = 50;
/** One pass posts at most this many messages before it reads the due list again: no group starves the rest. */
const MAX_STEPS_PER_PASS = 50;

/** What one post did, to merge into the group's record as it is by then. */
type Delivered = (fresh: AlertGroupRecord & { pending: PendingDelivery }) => AlertGroupRecord;

export class AlertGroupDelivery {
  private readonly inFlight = new Map<string, Promise<void>>();
  private readonly timers: Timers;
  private timer: unknown;
  private sweeping: Promise<number> | undefined;
  private stopped = true;

  constructor(private readonly options: AlertGroupDeliveryOptions) {
    this.timers = options.timers ?? systemTimers;
  }

  start(): void {
    this.stopped = false;
    this.schedule(0);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.timers.clearTimeout(this.timer);
    await this.sweeping;
    await this.idle();
  }

  /** Resolves once every delivery this process started has ended. */
  async idle(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.all([...this.inFlight.values()]);
  }

  /** How many groups have posts still to make, due or waiting for their retry. */
  backlog(): Promise<number> {
    return this.options.repository.pendingCount();
  }

  /** Posts for the group in the background; a failure is saved for the sweep, and logged. */
  deliverSoon(groupId: string): void {
    void this.deliver(groupId);
  }

  /**
   * Posts what the group's thread does not show yet. Resolves when it shows all of it, or when a post failed
   * (saved with its retry time), or when another process is posting for the group (it reads the record again
   * before it lets go). Never throws.
   */
  deliver(groupId: string): Promise<void> {
    const running = this.inFlight.get(groupId);
    // One delivery per group in this process; the running one reads the record again before it ends.
    if (running) return running.then(() => this.deliver(groupId));
    const work = this.deliverNow(groupId).finally(() => this.inFlight.delete(groupId));
    this.inFlight.set(groupId, work);
    return work;
  }

  /** Posts for each group whose retry is due; returns how many it tried. */
  sweep(): Promise<number> {
    this.sweeping ??= this.sweepDue().finally(() => {
      this.sweeping = undefined;
    });
    return this.sweeping;
  }

  private async sweepDue(): Promise<number> {
    try {
      const due = await this.options.repository.pendingDue(this.options.clock.now(), SWEEP_BATCH);
      await Promise.all(due.map((groupId) => this.deliver(groupId)));
      return due.length;
    } catch (error) {
      this.options.logger.warn(
        { err: errorMessage(error) },
        'the alert posts still to make could not be read',
      );
      return 0;
    }
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    this.timer = this.timers.setTimeout(() => {
      void this.sweep().finally(() => this.schedule(SWEEP_MS));
    }, ms);
  }

  private async deliverNow(groupId: string): Promise<void> {
    const { repository, logger } = this.options;
    try {
      await repository.delivering(groupId, async () => {
        for (let steps = 0; steps < MAX_STEPS_PER_PASS; steps++) {
          const record = await repository.find(groupId);
          if (!record || !hasPending(record.pending)) return;
          const pending = record.pending;
          let delivered: Delivered;
          try {
            delivered = await this.step({ ...record, pending });
          } catch (error) {
            if (isStoreUnavailable(error)) throw error;
            await this.failed(record, error);
            return;
          }
          await this.merge(record, (fresh) => settled(delivered(fresh)));
        }
      });
    } catch (error) {
      // The Store is down: the group stays due in the index, and the sweep tries again once it is back.
      logger.warn({ err: errorMessage(error), groupId }, 'an alert group post could not be recorded');
    }
  }

  /** Makes the first post the group still needs, and says what it did. */
  private async step(record: AlertGroupRecord & { pending: PendingDelivery }): Promise<Delivered> {
    const { chat, buttons } = this.options;
    const { pending } = record;
    const unchanged = (fresh: AlertGroupRecord) => fresh.revision === record.revision;
    if (pending.root === 'post') {
      const ref = await chat.post(record.root.conversation, rootMessage(record, buttons(record)));
      return (fresh) => ({
        ...fresh,
        root: { ...fresh.root, messageId: ref.messageId },
        pending: { ...fresh.pending, root: unchanged(fresh) ? undefined : 'edit' },
      });
    }
    if (pending.start) {
      const after = await this.startOpened(record);
      const started = after.investigation !== record.investigation;
      return (fresh) => ({
        ...fresh,
        investigation: after.investigation,
        pending: { ...fresh.pending, start: false, root: started ? 'edit' : fresh.pending.root },
      });
    }
    if (pending.root === 'edit') {
      await chat.update(record.root, rootMessage(record, buttons(record)));
      return (fresh) => ({
        ...fresh,
        pending: { ...fresh.pending, root: unchanged(fresh) ? undefined : fresh.pending.root },
      });
    }
    const [reply] = pending.replies;
    if (reply) await chat.post(threadOf(record), changeMessage(record, reply));
    // Replies are only ever added at the end, and taken off the front here, under the delivery claim.
    return (fresh) => ({ ...fresh, pending: { ...fresh.pending, replies: fresh.pending.replies.slice(1) } });
  }

  private async startOpened(record: AlertGroupRecord): Promise<AlertGroupRecord> {
    const { onOpened, settings } = this.options;
    if (!onOpened || record.status !== 'firing') return record;
    return onOpened(record, { destination: destinationFor(settings, commonLabels(record)) });
  }

  private async failed(record: AlertGroupRecord, error: unknown): Promise<void> {
    const { logger, clock, metrics } = this.options;
    metrics?.alertPostFailed();
    let outcome: ReturnType<typeof retryAfterFailure> | undefined;
    await this.merge(record, (fresh) => {
      outcome = retryAfterFailure(fresh, errorMessage(error), clock.now());
      return outcome.record;
    });
    const context = {
      err: errorMessage(error),
      groupKey: record.groupKey,
      channel: record.root.conversation,
    };
    if (outcome?.gaveUp) {
      logger.error(
        context,
        'an alert group post kept failing for a day and was given up: check that opsbot may post in the channel',
      );
    } else if (outcome) {
      logger.warn(
        { ...context, attempt: outcome.record.pending?.attempts, retryAt: outcome.record.pending?.retryAt },
        'an alert group post failed; it is saved and tried again',
      );
    }
  }

  /** Applies what a post did to the group as it is now, under its change claim. */
  private async merge(
    record: AlertGroupRecord,
    change: (fresh: AlertGroupRecord & { pending: PendingDelivery }) => AlertGroupRecord,
  ): Promise<void> {
    const { repository } = this.options;
    await repository.exclusively(record.groupId, record.groupKey, async () => {
      const fresh = await repository.find(record.groupId);
      if (!fresh?.pending) return;
      await repository.saveDelivered(change({ ...fresh, pending: fresh.pending }));
    });
  }
}

/** The labels every alert of the group shares: Alertmanager's `commonLabels`, for the route's checks. */
function commonLabels(record: AlertGroupRecord): Record<string, string> {
  const [first, ...rest] = record.alerts;
  if (!first) return { ...record.groupLabels };
  return Object.fromEntries(
    Object.entries(first.labels).filter(([name, value]) =>
      rest.every((alert) => alert.labels[name] === value),
    ),
  );
}
