// The secrets the settings take from the environment for the tools to send, as exact values for the redactor:
// a server that echoes its bearer token back (in an error, a debug field, a "whoami" tool) would otherwise put
// it in chat, the trace, the audit and the model's context, since a token of no known shape matches no rule.
import { isSecretValue } from '../agent/secret-values.js';
import { parseEnvironmentEntry } from './child-environment.js';
import type { McpSettings } from './mcp/mcp-settings.js';
import { type Environment, headerVariables } from './prometheus/endpoint-headers.js';
import type { ToolSettings } from './tool-settings-schema.js';

export interface SecretValueSettings {
  mcp: McpSettings;
  tools: Pick<ToolSettings, 'prometheus' | 'alertmanager'>;
}

/**
 * The `${VAR}` values of `mcp.servers.*.headers`, `tools.prometheus.headers` and `tools.alertmanager.headers`,
 * and the `env:` values of the stdio MCP servers, each kept when isSecretValue passes it under its variable's
 * (and header's) name. Variables not set are left out: the tools' start-up reports them.
 */
export function configuredSecretValues(settings: SecretValueSettings, environment: Environment): string[] {
  const headerSets = [
    ...Object.values(settings.mcp.servers).map((server) => server.headers),
    settings.tools.prometheus?.headers ?? {},
    settings.tools.alertmanager?.headers ?? {},
  ];
  const secrets = new Set<string>();
  for (const headers of headerSets) {
    for (const { header, variable, value } of headerVariables(headers, environment)) {
      if (isSecretValue([variable, header], value)) secrets.add(value);
    }
  }
  for (const server of Object.values(settings.mcp.servers)) {
    for (const entry of server.env.map(parseEnvironmentEntry)) {
      const value = entry.value ?? environment[entry.name];
      if (value !== undefined && isSecretValue([entry.name], value)) secrets.add(value);
    }
  }
  return [...secrets];
}
