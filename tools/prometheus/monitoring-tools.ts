// The Prometheus and Alertmanager tools, each set present only when its server's url is in the settings.
import type { Tool } from '../../agent/tool.js';
import type { NetworkGuard } from '../network-guard.js';
import { createAlertmanagerSilenceTool } from './alertmanager-silence.js';
import { createAlertmanagerSilencesTool } from './alertmanager-silences.js';
import type { Environment } from './endpoint-headers.js';
import type { EndpointSettings } from './endpoint-settings.js';
import { MonitoringClient } from './monitoring-client.js';
import { createPrometheusAlertsTool } from './prometheus-alerts.js';
import { createPrometheusQueryTool } from './prometheus-query.js';
import { createPrometheusRangeTool } from './prometheus-range.js';

export interface MonitoringSettings {
  prometheus?: EndpointSettings;
  alertmanager?: EndpointSettings;
}

/** Throws an Error naming the settings key (`tools.prometheus.headers.X: …`) when a header cannot be made. */
export function createMonitoringTools(
  settings: MonitoringSettings,
  options: { guard: NetworkGuard; environment: Environment },
): Tool[] {
  const client = (server: 'Prometheus' | 'Alertmanager', key: string, endpoint: EndpointSettings) => {
    try {
      return new MonitoringClient(server, endpoint, options.guard, options.environment);
    } catch (error) {
      throw new Error(`tools.${key}.${error instanceof Error ? error.message : String(error)}`, {
        cause: error,
      });
    }
  };
  const tools: Tool[] = [];
  if (settings.prometheus) {
    const prometheus = client('Prometheus', 'prometheus', settings.prometheus);
    tools.push(
      createPrometheusQueryTool({ client: prometheus }),
      createPrometheusRangeTool({ client: prometheus }),
      createPrometheusAlertsTool({ client: prometheus }),
    );
  }
  if (settings.alertmanager) {
    const alertmanager = client('Alertmanager', 'alertmanager', settings.alertmanager);
    tools.push(
      createAlertmanagerSilencesTool({ client: alertmanager }),
      createAlertmanagerSilenceTool({ client: alertmanager }),
    );
  }
  return tools;
}
