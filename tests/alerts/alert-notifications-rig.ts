// The receiver's two halves as the bot composes them, for tests that drive them without HTTP: the notifications
// that store each change, and the delivery that posts it.
import type { ChatPort } from '../../agent/chat-port.js';
import type { Clock } from '../../agent/clock.js';
import type { Logger } from '../../agent/logger.js';
import { AlertGroupDelivery } from '../../bot/alerts/alert-group-delivery.js';
import type { AlertGroupRepository } from '../../bot/alerts/alert-group-repository.js';
import { AlertNotifications } from '../../bot/alerts/alert-notifications.js';
import type { AlertSettings } from '../../bot/alerts/alert-settings.js';

export function alertNotifications(options: {
  settings: AlertSettings;
  repository: AlertGroupRepository;
  chat: ChatPort;
  clock: Clock;
  logger: Logger;
  silenceButtons?: boolean;
}): { notifications: AlertNotifications; delivery: AlertGroupDelivery } {
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
  return { notifications, delivery };
}
