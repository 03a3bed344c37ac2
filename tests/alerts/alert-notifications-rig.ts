// The receiver's two halves as the bot composes them, for tests that drive them without HTTP: the notifications
// that store each change, and the delivery that posts it.
import type { ChatPort } from '../../agent/chat-port.js';
import type { Clock } from '../../agent/clock.js';
import type { Logger } from '../../agent/logger.js';
import { AlertGroupDelivery } from '../../bot/alerts/alert-group-delivery.js';
import type { AlertGroupRepository } from '../../bot/alerts/alert-group-repository.js';
import { AlertNotifications, type NotificationOutcome } from '../../bot/alerts/alert-notifications.js';
import type { AlertSettings } from '../../bot/alerts/alert-settings.js';
import type { WebhookPayload } from '../../bot/alerts/alertmanager-payload.js';

export function alertNotifications(options: {
  settings: AlertSettings;
  repository: AlertGroupRepository;
  chat: ChatPort;
  clock: Clock;
  logger: Logger;
  silenceButtons?: boolean;
}): {
  notifications: AlertNotifications;
  delivery: AlertGroupDelivery;
  handle: (payload: WebhookPayload) => Promise<NotificationOutcome>;
} {
  const { settings, repository, chat, clock, logger } = options;
  const delivery = new AlertGroupDelivery({
    settings,
    repository,
    chat,
    clock,
    logger,
    buttons: () => ({
      investigateButton: false,
      silenceButtons: options.silenceButtons ?? false,
      now: clock.now(),
    }),
  });
  const notifications = new AlertNotifications({ settings, repository, delivery, clock, logger });
  return { notifications, delivery, handle: handledBy(notifications, delivery) };
}

/** A notification as the receiver takes it, resolving once its posts were made (or failed and were saved). */
export function handledBy(
  notifications: Pick<AlertNotifications, 'receive'>,
  delivery: Pick<AlertGroupDelivery, 'idle'>,
): (payload: WebhookPayload) => Promise<NotificationOutcome> {
  return async (payload) => {
    const outcome = await notifications.receive(payload);
    await delivery.idle();
    return outcome;
  };
}
