// `mcp:` is checked like the rest of the settings: each problem with its key, its line and a did-you-mean.
import { describe, expect, it } from 'vitest';
import { parseSettings } from '../../bot/config/load-settings.js';
import { InvalidSettingsError } from '../../bot/config/settings-problem.js';

function problems(lines: string[]) {
  try {
    parseSettings(lines.join('\n'), 'opsbot.yaml');
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidSettingsError);
    return (error as InvalidSettingsError).problems.map(({ key, line, message }) => ({ key, line, message }));
  }
  throw new Error('expected the settings to be rejected');
}

describe('the mcp settings', () => {
  it('default to no servers', () => {
    expect(parseSettings('', 'opsbot.yaml').mcp).toEqual({ servers: {} });
  });

  it("take the issue's example, with the defaults filled in", () => {
    const settings = parseSettings(
      [
        'mcp:',
        '  servers:',
        '    kube:',
        '      command: [/usr/local/bin/mcp-server-kubernetes, --read-only]',
        '      env: [KUBECONFIG]',
        '      timeout: 45s',
        '    grafana:',
        '      url: https://grafana-mcp.internal/mcp',
        // biome-ignore lint/suspicious/noTemplateCurlyInString: the settings' own ${NAME} syntax, kept as written.
        '      headers: { Authorization: "Bearer ${GRAFANA_MCP_TOKEN}" }',
        '      tools:',
        '        include: ["search_*", "query_*"]',
        '        exclude: ["*_delete"]',
        '        risk: { query_prometheus: read, create_annotation: write }',
        '',
      ].join('\n'),
      'opsbot.yaml',
    );
    expect(settings.mcp.servers.kube).toEqual({
      command: ['/usr/local/bin/mcp-server-kubernetes', '--read-only'],
      env: ['KUBECONFIG'],
      headers: {},
      timeout: 45_000,
      trust_new_tools: false,
      tools: { include: ['*'], exclude: [], risk: {} },
    });
    expect(settings.mcp.servers.grafana).toMatchObject({
      url: 'https://grafana-mcp.internal/mcp',
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the settings' own ${NAME} syntax, kept as written.
      headers: { Authorization: 'Bearer ${GRAFANA_MCP_TOKEN}' },
      timeout: 30_000,
      tools: {
        include: ['search_*', 'query_*'],
        exclude: ['*_delete'],
        risk: { query_prometheus: 'read', create_annotation: 'write' },
      },
    });
  });

  it('name a misspelt key with its line and a did-you-mean', () => {
    const found = problems([
      'mcp:',
      '  servers:',
      '    kube:',
      '      command: [mcp-server-kubernetes]',
      '      trust_new_tool: true',
      '      tools: { inclde: ["pods_*"] }',
      '',
    ]);
    expect(found).toEqual([
      {
        key: 'mcp.servers.kube.trust_new_tool',
        line: 5,
        message: expect.stringContaining('"trust_new_tools"'),
      },
      { key: 'mcp.servers.kube.tools.inclde', line: 6, message: expect.stringContaining('"include"') },
    ]);
  });

  it('refuse a server with both or neither of command and url, and a bad server name', () => {
    const found = problems([
      'mcp:',
      '  servers:',
      '    both:',
      '      command: [mcp-server-kubernetes]',
      '      url: http://127.0.0.1:3001/mcp',
      '    neither:',
      '      timeout: 5s',
      '    Kube.prod:',
      '      command: [mcp-server-kubernetes]',
      '',
    ]);
    expect(found).toEqual([
      { key: 'mcp.servers.both', line: 3, message: expect.stringContaining('exactly one of `command`') },
      { key: 'mcp.servers.neither', line: 6, message: expect.stringContaining('exactly one of `command`') },
      { key: 'mcp.servers["Kube.prod"]', line: 8, message: expect.stringContaining('"Kube.prod"') },
    ]);
  });

  it('refuse a header written out, env for a url server, a relative program and a bad duration or risk', () => {
    const found = problems([
      'mcp:',
      '  servers:',
      '    grafana:',
      '      url: https://grafana-mcp.internal/mcp',
      '      headers: { Authorization: "Bearer abc123" }',
      '      env: [GRAFANA_TOKEN]',
      '      timeout: 0s',
      '      tools: { risk: { create_annotation: low } }',
      '    local:',
      '      command: [./bin/server]',
      '',
    ]);
    expect(found.map(({ key, line }) => [key, line])).toEqual([
      ['mcp.servers.grafana.headers.Authorization', 5],
      ['mcp.servers.grafana.timeout', 7],
      ['mcp.servers.grafana.tools.risk.create_annotation', 8],
      ['mcp.servers.local.command[0]', 10],
    ]);
    // The cross-checks of a server run once its own keys pass.
    expect(
      problems(['mcp:', '  servers:', '    grafana:', '      url: https://g/mcp', '      env: [A]', '']),
    ).toEqual([
      { key: 'mcp.servers.grafana.env', line: 5, message: expect.stringContaining('`url` server') },
    ]);
  });
});
