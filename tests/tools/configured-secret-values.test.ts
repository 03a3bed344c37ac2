// The exact values the redactor is given from the settings: the `${VAR}` values of every header opsbot sends (MCP
// servers, Prometheus, Alertmanager) and the MCP stdio servers' `env:` values, by the same rule as a command's
// `env:` (agent/secret-values.ts); and the redactor a running opsbot builds from them.
import { describe, expect, it } from 'vitest';
import { REDACTED } from '../../agent/redaction.js';
import { parseSettings } from '../../bot/config/load-settings.js';
import { settingsRedactor } from '../../bot/settings-redactor.js';
import { configuredSecretValues } from '../../tools/configured-secret-values.js';

/** `${NAME}` as the settings write it: their own syntax, not a template literal. */
const ref = (name: string) => `$\{${name}}`;

const SETTINGS = parseSettings(
  [
    'tools:',
    '  prometheus:',
    '    url: http://prometheus:9090',
    `    headers: { Authorization: "Bearer ${ref('PROM_TOKEN')}", X-Scope-OrgID: "${ref('PROM_TENANT')}" }`,
    '  alertmanager:',
    '    url: http://alertmanager:9093',
    `    headers: { X-Api: "${ref('AM_VALUE')}" }`,
    'mcp:',
    '  servers:',
    '    grafana:',
    '      url: https://grafana-mcp.internal/mcp',
    `      headers: { Authorization: "Bearer ${ref('GRAFANA_MCP_TOKEN')}", X-Unset: "${ref('NOT_SET_HERE')}" }`,
    '    kube:',
    '      command: [kube-mcp]',
    '      env: [KUBECONFIG, "KUBE_TOKEN=Qm9vdHN0cmFwVG9rZW4xMjM0", "MODE=readonly"]',
    '',
  ].join('\n'),
  'test.yaml',
);

const ENVIRONMENT = {
  PROM_TOKEN: 'promtokenwithnoshape',
  PROM_TENANT: 'team-payments',
  AM_VALUE: 'Xk29fj3LmQ0pZ8aa',
  GRAFANA_MCP_TOKEN: 'glsa_aaaaaaaaaaaaaaaa',
  KUBECONFIG: '/etc/kube/config',
};

describe('configuredSecretValues', () => {
  it("takes every header's variable values and the stdio servers' env values that pass the rule", () => {
    expect(configuredSecretValues(SETTINGS, ENVIRONMENT).sort()).toEqual(
      [
        // Under Authorization: a secret whatever it looks like.
        'promtokenwithnoshape',
        'glsa_aaaaaaaaaaaaaaaa',
        // Under a name that says nothing, but no ordinary setting.
        'Xk29fj3LmQ0pZ8aa',
        'Qm9vdHN0cmFwVG9rZW4xMjM0',
      ].sort(),
    );
  });

  it('leaves out variables that are not set, for the tools to report', () => {
    expect(configuredSecretValues(SETTINGS, {})).toEqual(['Qm9vdHN0cmFwVG9rZW4xMjM0']);
  });
});

describe('settingsRedactor', () => {
  it("hides the headers' values whatever they look like, and keeps ordinary settings readable", () => {
    const redactor = settingsRedactor(SETTINGS, ENVIRONMENT);
    expect(redactor.redact('echoed promtokenwithnoshape for team-payments from /etc/kube/config')).toBe(
      `echoed ${REDACTED} for team-payments from /etc/kube/config`,
    );
  });
});
