// What `config check` lists of the settings besides roles and commands: the patrols, the alerts and the MCP
// servers, one line each, so a person sees at a glance what the file will run.
import type { Settings } from '../config/settings-schema.js';

export function settingsSummary(settings: Settings): string[] {
  const patrols = Object.entries(settings.patrols).map(
    ([name, patrol]) =>
      `${name} (${patrol.schedule}, ${patrol.channel.platform}:${patrol.channel.channelId}, ${patrol.checks.length} check${patrol.checks.length === 1 ? '' : 's'})`,
  );
  const { alerts } = settings;
  const routes = alerts.routes.length;
  const alertLine = alerts.channel
    ? `to ${alerts.channel.platform}:${alerts.channel.channelId}, ${routes} route${routes === 1 ? '' : 's'}, investigations ${alerts.investigate ? `on (as ${alerts.role}, at most ${alerts.max_investigations_per_hour}/h)` : 'off'}`
    : routes > 0
      ? `${routes} route${routes === 1 ? '' : 's'}, no default channel, investigations ${alerts.investigate ? 'on' : 'off'}`
      : 'none (no alerts.channel)';
  const servers = Object.entries(settings.mcp.servers).map(
    ([name, server]) => `${name} (${'command' in server && server.command ? 'stdio' : 'streamable HTTP'})`,
  );
  return [
    `patrols: ${patrols.join(', ') || 'none'}`,
    `alerts: ${alertLine}`,
    `MCP servers: ${servers.join(', ') || 'none'}`,
  ];
}
