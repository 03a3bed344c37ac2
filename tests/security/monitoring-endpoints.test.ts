// Attacks on the Prometheus and Alertmanager tools' edges: header secrets leaking into results, answers that are
// not the API's shape, a metadata address behind the configured URL, and credentials written into the settings.
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REDACTED } from '../../agent/redaction.js';
import type { Tool } from '../../agent/tool.js';
import { ToolArgumentError } from '../../agent/tool-errors.js';
import { createBuiltInTools } from '../../tools/index.js';
import type { Resolve } from '../../tools/network-guard.js';
import { ToolSettingsSchema } from '../../tools/tool-settings-schema.js';
import { callTool, dataOf } from '../tools/helpers/tool-context.js';

const TOKEN = 'prom-secret-4f9a1c7e2b';
const environment = { PROM_TOKEN: TOKEN, TENANT: 'team-a' };

/** A server that answers as the test says, on every path, and keeps each request's headers. */
let server: Server;
let base: string;
let answer: { status: number; body: string } = { status: 200, body: '{}' };
const seen: IncomingHttpHeaders[] = [];
beforeAll(async () => {
  server = createServer((request, response) => {
    seen.push(request.headers);
    response.writeHead(answer.status, { 'content-type': 'application/json' }).end(answer.body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

// biome-ignore lint/suspicious/noTemplateCurlyInString: ${NAME} is the settings' syntax, not a template.
const headers = { Authorization: 'Bearer ${PROM_TOKEN}', 'X-Scope-OrgID': '${TENANT}' };

function monitoringTools(url: string, options: { resolve?: Resolve } = {}): Map<string, Tool> {
  const settings = ToolSettingsSchema.parse({ prometheus: { url, headers }, alertmanager: { url, headers } });
  return new Map(createBuiltInTools(settings, { environment, ...options }).map((tool) => [tool.name, tool]));
}

describe('the Prometheus and Alertmanager endpoints', () => {
  it('sends the configured headers, their values taken from the environment', async () => {
    answer = {
      status: 200,
      body: JSON.stringify({ status: 'success', data: { resultType: 'vector', result: [] } }),
    };
    await callTool(monitoringTools(base).get('prometheus_query')!, { query: 'up' });
    expect(seen.at(-1)).toMatchObject({ authorization: `Bearer ${TOKEN}`, 'x-scope-orgid': 'team-a' });
  });

  it('attack: a server that echoes the bearer token back gets it redacted from the result and the error', async () => {
    const tools = monitoringTools(base);
    // A label value carrying the token, as a proxy in front of Prometheus might reflect a request header.
    answer = {
      status: 200,
      body: JSON.stringify({
        status: 'success',
        data: { resultType: 'vector', result: [{ metric: { seen: `Bearer ${TOKEN}` }, value: [1, '1'] }] },
      }),
    };
    const result = await callTool(tools.get('prometheus_query')!, { query: 'up' });
    expect(JSON.stringify(result)).not.toContain(TOKEN);
    expect(JSON.stringify(result)).toContain(REDACTED);
    expect(JSON.stringify(result)).not.toContain('team-a');

    answer = {
      status: 400,
      body: JSON.stringify({ status: 'error', errorType: 'bad_data', error: `bad ${TOKEN}` }),
    };
    const refused = await callTool(tools.get('prometheus_query')!, { query: 'up' }).catch((error) => error);
    expect(refused).toBeInstanceOf(ToolArgumentError);
    expect(refused.message).not.toContain(TOKEN);

    answer = { status: 503, body: `upstream rejected Authorization: Bearer ${TOKEN}` };
    const failed = await callTool(tools.get('alertmanager_silences')!, {}).catch((error) => error);
    expect(failed).toBeInstanceOf(Error);
    expect(failed.message).toContain('HTTP 503');
    expect(failed.message).not.toContain(TOKEN);
  });

  it('attack: an answer that is not the API shape is refused by zod, not passed to the model as data', async () => {
    const tools = monitoringTools(base);
    answer = {
      status: 200,
      body: JSON.stringify({ status: 'success', data: { resultType: 'vector', result: 'x' } }),
    };
    await expect(callTool(tools.get('prometheus_query')!, { query: 'up' })).rejects.toThrow(
      /Prometheus answered api\/v1\/query with HTTP 200 and a body that is not its API's shape at result/,
    );
    answer = { status: 200, body: '<html>login page</html>' };
    await expect(callTool(tools.get('alertmanager_silences')!, {})).rejects.toThrow(/not its API's shape/);
    answer = { status: 200, body: JSON.stringify([{ id: 1, matchers: 'all' }]) };
    await expect(callTool(tools.get('alertmanager_silences')!, {})).rejects.toThrow(/not its API's shape/);
  });

  it('attack: a configured URL whose name resolves to a metadata address is refused, like http_check', async () => {
    const resolve: Resolve = async () => [{ address: '169.254.169.254', family: 4 }];
    const before = seen.length;
    const tools = monitoringTools('http://prometheus.attacker.test:9090', { resolve });
    for (const [name, args] of [
      ['prometheus_query', { query: 'up' }],
      ['prometheus_range', { query: 'up' }],
      ['prometheus_alerts', {}],
      ['alertmanager_silences', {}],
    ] as const) {
      const result = await callTool(tools.get(name)!, args);
      expect(result.ok).toBe(false);
      expect(dataOf(result).refused).toBe(true);
      expect(result.summary).toMatch(/is a cloud metadata address \(.*\), which is always refused/);
    }
    expect(seen.length).toBe(before);
  });

  it('attack: a credential written into the settings instead of the environment is a settings error', () => {
    const parsed = ToolSettingsSchema.safeParse({
      prometheus: { url: base, headers: { Authorization: `Bearer ${TOKEN}` } },
    });
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues[0]).toMatchObject({
      path: ['prometheus', 'headers', 'Authorization'],
      message: expect.stringMatching(/must take its secret from the environment/),
    });
  });

  it('attack: a Host or Content-Length header from the settings, which could misroute the request, is refused', () => {
    for (const name of ['Host', 'content-length', 'Transfer-Encoding']) {
      const parsed = ToolSettingsSchema.safeParse({
        prometheus: { url: base, headers: { [name]: '$' + '{TENANT}' } },
      });
      expect(parsed.success, name).toBe(false);
      expect(parsed.error?.issues[0]?.message).toMatch(/the client sets these headers itself/);
    }
  });

  it('stops start-up naming the key and the variable when a header variable is not set', () => {
    const settings = ToolSettingsSchema.parse({ prometheus: { url: base, headers } });
    expect(() => createBuiltInTools(settings, { environment: { TENANT: 'team-a' } })).toThrow(
      'tools.prometheus.headers.Authorization: the environment variable PROM_TOKEN is not set',
    );
  });
});
