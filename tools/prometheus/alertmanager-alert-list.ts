// The alerts Alertmanager holds now (firing, silenced, inhibited or not yet processed), for opsbot's own check
// that an alert thread still fires: Alertmanager sends no resolved notification for an alert it silences.
import { z } from 'zod';
import { withTimeLimit } from '../call-limits.js';
import { createNetworkGuard, type NetworkRules } from '../network-guard.js';
import { alertmanagerSend } from './alertmanager-api.js';
import type { Environment } from './endpoint-headers.js';
import type { EndpointSettings } from './endpoint-settings.js';
import { MonitoringClient } from './monitoring-client.js';

const HeldAlert = z.object({
  fingerprint: z.string(),
  status: z.object({ state: z.string() }),
});
const HeldAlerts = z.array(HeldAlert);

export interface AlertmanagerReader {
  /** The fingerprints of every alert Alertmanager has that has not resolved. Throws when it cannot say. */
  heldFingerprints(): Promise<Set<string>>;
}

const READ_TIMEOUT_MS = 10_000;

export function createAlertmanagerReader(
  endpoint: EndpointSettings,
  options: { network: NetworkRules; environment: Environment },
): AlertmanagerReader {
  const guard = createNetworkGuard(options.network);
  const client = new MonitoringClient('Alertmanager', endpoint, guard, options.environment);
  return {
    async heldFingerprints() {
      const alerts = await withTimeLimit(READ_TIMEOUT_MS, (limits) =>
        alertmanagerSend(
          client,
          limits,
          {
            method: 'GET',
            path: 'api/v2/alerts',
            query: { active: 'true', silenced: 'true', inhibited: 'true', unprocessed: 'true' },
          },
          HeldAlerts,
        ),
      );
      return new Set(alerts.map((alert) => alert.fingerprint));
    },
  };
}
