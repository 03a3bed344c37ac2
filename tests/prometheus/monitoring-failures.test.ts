// How the Prometheus and Alertmanager tools fail when their server does: a hung server is a result that did not
// pass, at its time limit; a closed port or a 5xx fails the call (transient), naming the server.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Tool } from '../../agent/tool.js';
import { createBuiltInTools } from '../../tools/index.js';
import { ToolSettingsSchema } from '../../tools/tool-settings-schema.js';
import { freePort } from '../redis-server.js';
import { type HungServer, startHungServer } from '../tools/helpers/hung-server.js';
import { callTool, dataOf } from '../tools/helpers/tool-context.js';

let hung: HungServer;
let failing: Server;
let failingUrl: string;
beforeAll(async () => {
  hung = await startHungServer();
  failing = createServer((_request, response) => response.writeHead(503).end('overloaded'));
  await new Promise<void>((resolve) => failing.listen(0, '127.0.0.1', resolve));
  failingUrl = `http://127.0.0.1:${(failing.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await hung.close();
  await new Promise<void>((resolve) => failing.close(() => resolve()));
});

function toolAt(url: string, name: string): Tool {
  const settings = ToolSettingsSchema.parse({ prometheus: { url }, alertmanager: { url } });
  return createBuiltInTools(settings).find((tool) => tool.name === name)!;
}

describe('a Prometheus or Alertmanager that does not answer well', () => {
  it('a hung server: the call returns at its time limit as a result that did not pass', async () => {
    const result = await callTool(toolAt(`http://127.0.0.1:${hung.port}`, 'prometheus_query'), {
      query: 'up',
      timeout_ms: 300,
    });
    expect(result).toMatchObject({ ok: false, data: { timed_out: true, timeout_ms: 300 } });
    expect(result.summary).toBe('prometheus_query: Prometheus did not answer: it timed out after 300 ms.');
    expect(dataOf(result).timed_out).toBe(true);
  });

  it('a closed port: the call fails naming the server and the error', async () => {
    const url = `http://127.0.0.1:${await freePort()}`;
    await expect(callTool(toolAt(url, 'alertmanager_silences'), {})).rejects.toThrow(
      `Alertmanager at ${url}/: connect ECONNREFUSED`,
    );
  });

  it('a 5xx: the call fails with the status and the start of the body', async () => {
    await expect(callTool(toolAt(failingUrl, 'prometheus_alerts'), {})).rejects.toThrow(
      'Prometheus answered api/v1/alerts with HTTP 503: overloaded',
    );
  });
});
