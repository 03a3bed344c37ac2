// The shipped self-check patrol checks the bot where it listens: `{{opsbot.url}}` follows PORT, so a bot on
// another port does not report itself down; a patrol that writes the bot's port by hand is warned about.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../bot/cli/main.js';
import { selfPortWarnings } from '../../scheduled/self-port-warnings.js';

let dir: string;
/** Stands in for the bot: answers its /healthz on a port that is not 3000. */
let bot: Server;
let port: number;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'opsbot-self-check-'));
  bot = createServer((request, response) => {
    response.writeHead(request.url === '/healthz' ? 200 : 404).end('ok');
  });
  await new Promise<void>((done) => bot.listen(0, '127.0.0.1', done));
  port = (bot.address() as AddressInfo).port;
  writeFileSync(
    join(dir, 'by-hand.yaml'),
    [
      'patrols:',
      '  self-check:',
      "    schedule: '* * * * *'",
      '    channel: playground:ops',
      '    checks:',
      "      - { id: healthz, tool: http_check, args: { url: 'http://127.0.0.1:3000/healthz' } }",
      '',
    ].join('\n'),
  );
});
afterAll(async () => {
  await new Promise((done) => bot.close(done));
  rmSync(dir, { recursive: true, force: true });
});

async function cli(argv: string[], config: string) {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const stdin = new PassThrough();
  let out = '';
  stdout.on('data', (chunk) => {
    out += chunk;
  });
  stderr.on('data', (chunk) => {
    out += chunk;
  });
  stdin.end();
  const env = {
    OPSBOT_CONFIG: config,
    OPSBOT_DATA_DIR: join(dir, 'data'),
    OPSBOT_STORE_URL: `sqlite://${join(dir, 'data', 'opsbot.sqlite')}`,
    LOG_LEVEL: 'error',
    PORT: String(port),
  };
  const code = await runCli(argv, { env, stdout, stderr, stdin, interactive: false });
  return { code, out };
}

describe('the shipped self-check patrol', () => {
  it('checks the bot on the port PORT gives, and passes', async () => {
    const { code, out } = await cli(['patrol', 'run', 'self-check'], resolve('opsbot.yaml'));
    expect(out).toContain(`http://127.0.0.1:${port}/healthz`);
    expect(out).toMatch(/✔ healthz \(http_check\)/);
    expect(code).toBe(0);
  });
});

describe('a patrol that writes the bot port by hand', () => {
  it('is warned about by config check, with the fix', async () => {
    const { out } = await cli(['config', 'check'], join(dir, 'by-hand.yaml'));
    expect(out).toContain(
      `patrol self-check, check "healthz" checks http://127.0.0.1:3000/healthz, but opsbot listens on port ${port} (PORT): write '{{opsbot.url}}/healthz'`,
    );
  });

  it('is not warned about when the port is the one the bot listens on, or the URL is another service', () => {
    const patrol = (url: string) => ({
      p: { checks: [{ id: 'c', tool: 'http_check', args: { url } }] },
    });
    const listen = { host: '127.0.0.1', port: 3000 };
    expect(selfPortWarnings(patrol('http://127.0.0.1:3000/healthz') as never, listen)).toEqual([]);
    expect(selfPortWarnings(patrol('http://127.0.0.1:9090/-/healthy') as never, listen)).toEqual([]);
    expect(selfPortWarnings(patrol('https://api.example/healthz') as never, listen)).toEqual([]);
    expect(selfPortWarnings(patrol('http://localhost:8080/readyz') as never, listen)).toHaveLength(1);
  });
});
