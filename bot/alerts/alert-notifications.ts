// What one Alertmanager notification does: under the group's claim, the group's transition (alert-group-state.ts)
// and the posts it causes: a new root, or the root edited and a reply in its thread. Nothing else posts.
import type { ChatPort } from '../../agent/chat-port.js';
import type { Clock } from '../../agent/clock.js';
import { errorMessage, isStoreUnavailable } from '../../agent/errors.js';
import type { Logger } from '../../agent/logger.js';
import { changeMessage, type RootButtonOffers, rootMessage } from './alert-group-messages.js';
import type { AlertGroupRepository } from './alert-group-repository.js';
import { alertGroupId } from './alert-group-repository.js';
import { type AlertGroupRecord, groupChange, recordAfter } from './alert-group-state.js';
import { type AlertDestination, destinationFor } from './alert-routes.js';
import type { AlertSettings } from './alert-settings.js';
import type { WebhookPayload } from './alertmanager-payload.js';

export type NotificationOutcome =
  | 'opened'
  | 'changed'
  | 'resolved'
  | 'duplicate'
  | 'nothing_open'
  | 'dropped'
  | 'no_channel'
  | 'post_failed';

/** What the receiver counts: each notification by outcome, and those it refused before reading (401, 400). */
export interface AlertMetrics {
  notificationHandled(outcome: NotificationOutcome | 'unauthorized' | 'refused'): void;
}

/** Starts what a new group gets (an investigation, or its route's checks) and says so on the root. */
export type OpenedGroupHook = (
  record: AlertGroupRecord,
  context: { payload: WebhookPayload; destination: AlertDestination },
) => Promise<AlertGroupRecord>;

export interface AlertNotificationsOptions {
  settings: AlertSettings;
  repository: AlertGroupRepository;
  chat: ChatPort;
  clock: Clock;
  logger: Logger;
  metrics?: AlertMetrics;
  onOpened?: OpenedGroupHook;
  /** Whether a root offers Investigate (a model is configured and investigations are not automatic). */
  investigateButton?: (record: AlertGroupRecord) => boolean;
  /** Whether roots offer Silence 1 h / 4 h: `tools.alertmanager.url` is set. */
  silenceButtons?: boolean;
}

export class AlertNotifications {
  constructor(private readonly options: AlertNotificationsOptions) {}

  async handle(payload: WebhookPayload): Promise<NotificationOutcome> {
    const groupId = alertGroupId(payload.groupKey);
    const outcome = await this.options.repository.exclusively(groupId, payload.groupKey, () =>
      this.apply(groupId, payload),
    );
    this.options.metrics?.notificationHandled(outcome);
    return outcome;
  }

  private async apply(groupId: string, payload: WebhookPayload): Promise<NotificationOutcome> {
    const { repository, chat, clock, logger } = this.options;
    const record = await repository.find(groupId);
    const change = groupChange(record, payload, clock.now());
    if (change.kind === 'none') return change.reason === 'same_firing_set' ? 'duplicate' : 'nothing_open';
    try {
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
        const draft = recordAfter(undefined, change, {
          groupId,
          payload,
          root: { conversation: destination.channel, messageId: '' },
        });
        const ref = await chat.post(destination.channel, rootMessage(draft, this.buttons(draft)));
        const opened: AlertGroupRecord = {
          ...draft,
          root: { conversation: { ...destination.channel }, messageId: ref.messageId },
        };
        await repository.save(opened);
        if (this.options.onOpened) {
          const after = await this.options.onOpened(opened, { payload, destination });
          if (after !== opened) {
            await repository.save(after);
            await chat.update(opened.root, rootMessage(after, this.buttons(after)));
          }
        }
        return 'opened';
      }
      if (!record) return 'nothing_open';
      const next = recordAfter(record, change, { groupId, payload });
      await chat.update(record.root, rootMessage(next, this.buttons(next)));
      await chat.post(
        { ...record.root.conversation, threadId: record.root.messageId },
        changeMessage(next, change),
      );
      await repository.save(next);
      return change.kind;
    } catch (error) {
      if (isStoreUnavailable(error)) throw error;
      // Nothing was saved for this change, so the next notification of the group (group_interval, repeat_interval)
      // finds the same change and posts it.
      logger.error({ err: errorMessage(error), groupKey: payload.groupKey }, 'an alert group post failed');
      return 'post_failed';
    }
  }

  private buttons(record: AlertGroupRecord): RootButtonOffers {
    return {
      investigateButton: this.options.investigateButton?.(record) ?? false,
      silenceButtons: this.options.silenceButtons ?? false,
      now: this.options.clock.now(),
    };
  }
}
