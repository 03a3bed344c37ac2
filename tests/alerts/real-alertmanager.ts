// The alerts suite's view of the real Alertmanager (tests/monitoring-servers.ts starts it): its webhook pointing
// at opsbot, alerts posted to its API, and the notifications it has sent, so a test waits on what it did.
import {
  ALERTMANAGER,
  type AlertmanagerServer,
  monitoringServersInstalled,
  postAlerts,
  startAlertmanager,
  type WebhookTarget,
  webhookConfig,
  webhookNotifications,
} from '../monitoring-servers.js';

export const alertmanagerInstalled = monitoringServersInstalled([ALERTMANAGER]);

export interface AlertInput {
  labels: Record<string, string>;
  annotations?: Record<string, string>;
  startsAt?: string;
  endsAt?: string;
  generatorURL?: string;
}

export class RealAlertmanager {
  private constructor(private readonly server: AlertmanagerServer) {}

  static async start(target: WebhookTarget): Promise<RealAlertmanager> {
    return new RealAlertmanager(await startAlertmanager(webhookConfig(target)));
  }

  get url(): string {
    return this.server.url;
  }

  /** Points the webhook at another opsbot (a restarted one, on a new port), as a config reload. */
  retarget(target: WebhookTarget): Promise<void> {
    return this.server.reconfigure(webhookConfig(target));
  }

  post(alerts: AlertInput[]): Promise<void> {
    return postAlerts(this.server.url, alerts);
  }

  notifications(): Promise<{ sent: number; failed: number }> {
    return webhookNotifications(this.server.url);
  }

  stop(): Promise<void> {
    return this.server.close();
  }
}
