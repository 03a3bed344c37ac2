// What one Alertmanager notification does: under the group's claim, the group's transition (alert-group-state.ts)
// is saved with what its thread must show, and the receiver answers. The posts follow (alert-group-delivery.ts):
// a new root, or the root edited and a reply in its thread. Nothing else posts.
import type { Clock } from '../../agent/clock.js';
import type { Logger } from '../../agent/logger.js';
import type { AlertGroupDelivery } from './alert-group-delivery.js';
import type { AlertGroupRepository } from './alert-group-repository.js';
import { alertGroupId } from './alert-group-repository.js';
import { groupChange, recordAfter } from './alert-group-state.js';
import { destinationFor } from './alert-routes.js';
import type { AlertSettings } from './alert-settings.js';
import type { WebhookPayload } from './alertmanager-payload.js';

export type NotificationOutcome =
  | 'opened'
  | 'changed'
  | 'resolved'
  | 'duplicate'
  | 'nothing_open'
  | 'dropped'
  | 'no_channel';

/** What the receiver counts: each notification by outcome, and those it refused before reading (401, 400). */
export interface AlertMetrics {
  notificationHandled(outcome: NotificationOutcome | 'unauthorized' | 'refused'): void;
}

export interface AlertNotificationsOptions {
  settings: AlertSettings;
  repository: AlertGroupRepository;
  delivery: Pick<AlertGroupDelivery, 'deliverSoon'>;
  clock: Clock;
  logger: Logger;
  metrics?: AlertMetrics;
}

const POSTS: ReadonlySet<NotificationOutcome> = new Set(['opened', 'changed', 'resolved']);

export class AlertNotifications {
  constructor(private readonly options: AlertNotificationsOptions) {}

  /**
   * Saves what the notification changes and returns, so Alertmanager has its answer whatever the chat platform's
   * pace; the posts are made in the background. Throws only when the Store cannot take the change.
   */
  async receive(payload: WebhookPayload): Promise<NotificationOutcome> {
    const { outcome, groupId } = await this.accept(payload);
    if (POSTS.has(outcome)) this.options.delivery.deliverSoon(groupId);
    return outcome;
  }

  /**
   * A change no notification told: what Alertmanager's list of its alerts says (alert-group-held.ts). Made as a
   * notification's, under the group's claim, with `note` in the reply; not counted as a notification.
   */
  async learned(payload: WebhookPayload, note: string): Promise<NotificationOutcome> {
    const groupId = alertGroupId(payload.groupKey);
    const outcome = await this.options.repository.exclusively(groupId, payload.groupKey, () =>
      this.apply(groupId, payload, note),
    );
    if (POSTS.has(outcome)) this.options.delivery.deliverSoon(groupId);
    return outcome;
  }

  private async accept(payload: WebhookPayload): Promise<{ outcome: NotificationOutcome; groupId: string }> {
    const groupId = alertGroupId(payload.groupKey);
    const outcome = await this.options.repository.exclusively(groupId, payload.groupKey, () =>
      this.apply(groupId, payload),
    );
    this.options.metrics?.notificationHandled(outcome);
    return { outcome, groupId };
  }

  private async apply(groupId: string, payload: WebhookPayload, note?: string): Promise<NotificationOutcome> {
    const { repository, clock, logger } = this.options;
    const record = await repository.find(groupId);
    const change = groupChange(record, payload, clock.now());
    if (change.kind === 'none') return change.reason === 'same_firing_set' ? 'duplicate' : 'nothing_open';
    // What Alertmanager's list says only ever closes alerts of a group open here; it opens none.
    if (note !== undefined && change.kind === 'opened') return 'nothing_open';
    if (change.kind === 'opened') {
      const destination = destinationFor(this.options.settings, payload.commonLabels);
      if (destination.kind === 'drop') return 'dropped';
      if (destination.kind === 'nowhere') {
        logger.warn(
          { groupKey: payload.groupKey },
          'an alert group matched no route with a channel, and alerts.channel is not set: not posted',
        );
        return 'no_channel';
      }
      await repository.save(
        recordAfter(undefined, change, { groupId, payload, channel: destination.channel }),
      );
      return 'opened';
    }
    if (!record) return 'nothing_open';
    await repository.save(recordAfter(record, change, { groupId, payload, ...(note ? { note } : {}) }));
    return change.kind;
  }
}
