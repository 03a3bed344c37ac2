// The Alertmanager receiver, mounted on the one HTTP server where events are taken: on with OPSBOT_ALERTS_TOKEN,
// and otherwise a 404 that says how to turn it on.
import type { ChatPort } from '../../agent/chat-port.js';
import type { Clock } from '../../agent/clock.js';
import type { Logger } from '../../agent/logger.js';
import type { Platform } from '../../agent/principal.js';
import { createAlertmanagerReader } from '../../tools/index.js';
import { AlertButtons } from '../alerts/alert-buttons.js';
import { AlertGroupDelivery } from '../alerts/alert-group-delivery.js';
import { HeldAlertSweep } from '../alerts/alert-group-held.js';
import type { RootButtonOffers } from '../alerts/alert-group-messages.js';
import { AlertGroupRepository } from '../alerts/alert-group-repository.js';
import type { AlertGroupRecord } from '../alerts/alert-group-state.js';
import { AlertInvestigations } from '../alerts/alert-investigations.js';
import { AlertNotifications } from '../alerts/alert-notifications.js';
import { ALERTS_PATH, alertReceiver, alertsOff } from '../alerts/alert-receiver.js';
import type { AlertSettings } from '../alerts/alert-settings.js';
import { SilenceRunLinks } from '../alerts/alert-silence-links.js';
import { AlertSilences } from '../alerts/alert-silences.js';
import type { Opsbot } from '../compose.js';
import type { HttpServer } from '../http/http-server.js';
import type { OpsbotMetrics } from '../metrics/opsbot-metrics.js';
import type { Service } from './service.js';

export interface AlertsMount {
  /** The receiver is on (its token is set, and this process takes events). */
  on: boolean;
  notifications?: AlertNotifications;
  /** Posts what alert threads do not show yet; its sweep runs from start() until stop(). */
  delivery?: AlertGroupDelivery;
  /** With tools.alertmanager.url: closes alerts Alertmanager no longer has (silenced ones resolve unannounced). */
  held?: HeldAlertSweep;
  investigations?: AlertInvestigations;
  /** For the router: the root's buttons, when the bot has an audit log (always, but in unit tests). */
  buttons?: AlertButtons;
}

export function mountAlerts(options: {
  opsbot: Pick<Opsbot, 'store' | 'settings' | 'environment'> & Partial<Pick<Opsbot, 'kernel' | 'audit'>>;
  chat: ChatPort;
  http: Pick<HttpServer, 'mount'>;
  logger: Logger;
  clock: Clock;
  takesEvents: boolean;
  metrics?: OpsbotMetrics;
}): AlertsMount {
  const { opsbot, http, logger } = options;
  const token = opsbot.environment.OPSBOT_ALERTS_TOKEN;
  if (token === undefined || !options.takesEvents) {
    http.mount(ALERTS_PATH, alertsOff);
    return { on: false };
  }
  const investigations = opsbot.kernel
    ? new AlertInvestigations({
        kernel: opsbot.kernel,
        store: opsbot.store,
        settings: opsbot.settings.alerts,
        clock: options.clock,
        logger,
        ...(options.metrics ? { metrics: options.metrics } : {}),
      })
    : undefined;
  const repository = new AlertGroupRepository(opsbot.store);
  // Silence is offered only where the tool is: `tools.alertmanager.url` registers alertmanager_silence.
  const silences =
    opsbot.kernel && opsbot.settings.tools.alertmanager
      ? new AlertSilences(opsbot.kernel, new SilenceRunLinks(opsbot.store))
      : undefined;
  const buttons = opsbot.audit
    ? new AlertButtons({
        repository,
        chat: options.chat,
        ...(investigations ? { investigations } : {}),
        ...(silences ? { silences } : {}),
        permissions: opsbot.settings.permissions,
        audit: opsbot.audit,
        clock: options.clock,
      })
    : undefined;
  const silenceButtons = silences !== undefined && buttons !== undefined;
  const offers = (record: AlertGroupRecord): RootButtonOffers => ({
    investigateButton: investigations?.offersButton(record) ?? false,
    silenceButtons,
    now: options.clock.now(),
  });
  const delivery = new AlertGroupDelivery({
    settings: opsbot.settings.alerts,
    repository,
    chat: options.chat,
    clock: options.clock,
    logger,
    buttons: offers,
    ...(options.metrics ? { metrics: options.metrics } : {}),
    ...(investigations
      ? { onOpened: (record, { destination }) => investigations.opened(record, destination) }
      : {}),
  });
  const notifications = new AlertNotifications({
    settings: opsbot.settings.alerts,
    repository,
    delivery,
    clock: options.clock,
    logger,
    ...(options.metrics ? { metrics: options.metrics } : {}),
  });
  const alertmanager = opsbot.settings.tools.alertmanager;
  const held = alertmanager
    ? new HeldAlertSweep({
        reader: createAlertmanagerReader(alertmanager, {
          network: opsbot.settings.tools.network,
          // As the tools read their headers' ${VAR}s.
          environment: process.env,
        }),
        repository,
        notifications,
        delivery,
        clock: options.clock,
        logger,
      })
    : undefined;
  http.mount(
    ALERTS_PATH,
    alertReceiver({ token, notifications, logger, ...(options.metrics ? { metrics: options.metrics } : {}) }),
  );
  return {
    on: true,
    notifications,
    delivery,
    ...(held ? { held } : {}),
    ...(investigations ? { investigations } : {}),
    ...(buttons ? { buttons } : {}),
  };
}

/** The sweep that asks Alertmanager which alerts it still holds, for the service set. */
export function heldAlertService(held: HeldAlertSweep): Service {
  return {
    name: 'alertmanager check',
    async start() {
      held.start();
    },
    stop: () => held.stop(),
  };
}

/** The delivery's sweep, for the service set: started once the chat adapters are, and stopped before them. */
export function alertDeliveryService(delivery: AlertGroupDelivery): Service {
  return {
    name: 'alert posts',
    async start() {
      delivery.start();
    },
    stop: () => delivery.stop(),
    async readiness() {
      const waiting = await delivery.backlog();
      return {
        ok: true,
        detail: waiting === 0 ? 'all shown' : `${waiting} alert group(s) with posts still to make`,
      };
    },
  };
}

/**
 * The alert channels (alerts.channel and each route's) on a platform no adapter of this process posts to: their
 * groups are kept and retried, but never shown until that platform runs somewhere.
 */
export function alertChannelsWithoutAdapter(
  settings: Pick<AlertSettings, 'channel' | 'routes'>,
  running: (platform: Platform) => boolean,
): string[] {
  const channels = [settings.channel, ...settings.routes.map((route) => route.channel)];
  const missing = new Set<string>();
  for (const channel of channels) {
    if (channel && !running(channel.platform)) missing.add(`${channel.platform}:${channel.channelId}`);
  }
  return [...missing];
}
