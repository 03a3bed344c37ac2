// `opsbot patrol …` and `opsbot config check` through the real CLI: real settings, a SQLite store, the real
// http_check against a local server, and a user tool that throws; and createOpsbot refusing a danger-tool patrol.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { PassThrough } from 'node:stream';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nullChatPort } from '../../agent/chat-port.js';
import { runCli } from '../../bot/cli/main.js';
import { createOpsbot } from '../../bot/compose.js';
import { readEnvironment } from '../../bot/config/environment.js';
import { loadSettings } from '../../bot/config/load-settings.js';
import { InvalidSettingsError } from '../../bot/config/settings-problem.js';
import { recordingLogger } from './patrol-rig.js';

let dir: string;
let target: Server;
let base: string;

// A user tool that always throws, loaded from custom_tools_dir: a check that cannot run.
const brokenTool = `
import { z } from '${pathToFileURL(resolve('node_modules/zod/index.js')).href}';
import { defineTool } from '${pathToFileURL(resolve('agent/tool.ts')).href}';
export default defineTool({
  name: 'broken_probe',
  description: 'Probes something that is broken. Use when testing patrols. Do not use otherwise.',
  input: z.object({}),
  risk: 'read',
  async execute() {
    throw new Error('the probe could not connect');
  },
});
`;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'opsbot-patrol-cli-'));
  target = createServer((request, response) => {
    response.writeHead(request.url === '/ok' ? 200 : 503).end(request.url === '/ok' ? 'fine' : 'down');
  });
  await new Promise<void>((done) => target.listen(0, '127.0.0.1', done));
  base = `http://127.0.0.1:${(target.address() as AddressInfo).port}`;
  mkdirSync(join(dir, 'tools'));
  writeFileSync(join(dir, 'tools', 'broken-probe.mjs'), brokenTool);
  const patrol = (name: string, checks: string[]) => [
    `  ${name}:`,
    "    schedule: '*/5 * * * *'",
    '    channel: playground:ops',
    '    checks:',
    ...checks.map((check) => `      - ${check}`),
  ];
  writeFileSync(
    join(dir, 'opsbot.yaml'),
    [
      'permissions:',
      '  roles:',
      '    viewer: { tools: ["*"], risks: [read] }',
      '    admin: { tools: ["*"], approve: ["*"], admin: true }',
      '  identities:',
      "    'local:operator': { roles: [admin], display_name: Olive }",
      "    'local:val': { roles: [viewer], display_name: Val }",
      'tools:',
      `  custom_tools_dir: ${join(dir, 'tools')}`,
      'patrols:',
      ...patrol('healthy', [`{ id: api, tool: http_check, args: { url: '${base}/ok' } }`]),
      ...patrol('failing', [
        `{ id: api, tool: http_check, args: { url: '${base}/ok' } }`,
        `{ id: shop, tool: http_check, args: { url: '${base}/down' }, severity: warn }`,
      ]),
      ...patrol('broken', [
        `{ id: api, tool: http_check, args: { url: '${base}/down' } }`,
        '{ id: probe, tool: broken_probe }',
      ]),
      '',
    ].join('\n'),
  );
  writeFileSync(
    join(dir, 'danger.yaml'),
    [
      'tools:',
      '  allowed_executables: [/usr/bin/systemctl, /bin/systemctl]',
      '  commands:',
      '    restart_service:',
      '      description: Restart a service.',
      "      argv: [systemctl, restart, '{service}']",
      '      risk: danger',
      '      parameters:',
      '        service: { description: The service, enum: [api, worker] }',
      'patrols:',
      '  nightly:',
      "    schedule: '0 3 * * *'",
      '    channel: playground:ops',
      '    checks:',
      '      - { id: fix, tool: restart_service, args: { service: api } }',
      '',
    ].join('\n'),
  );
});
afterAll(async () => {
  await new Promise((done) => target.close(done));
  rmSync(dir, { recursive: true, force: true });
});

const environment = () => ({
  OPSBOT_CONFIG: join(dir, 'opsbot.yaml'),
  OPSBOT_DATA_DIR: join(dir, 'data'),
  OPSBOT_STORE_URL: `sqlite://${join(dir, 'data', 'opsbot.sqlite')}`,
  LOG_LEVEL: 'error',
});

async function cli(argv: string[], config = join(dir, 'opsbot.yaml')) {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const stdin = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (chunk) => {
    out += chunk;
  });
  stderr.on('data', (chunk) => {
    err += chunk;
  });
  stdin.end();
  const env = { ...environment(), OPSBOT_CONFIG: config };
  const code = await runCli(argv, { env, stdout, stderr, stdin, interactive: false });
  return { code, out, err };
}

describe('opsbot patrol run', () => {
  it('exits 0 when every check passes', async () => {
    const { code, out } = await cli(['patrol', 'run', 'healthy']);
    expect(code).toBe(0);
    expect(out).toMatch(/✔ api \(http_check\): GET .*\/ok returned 200 OK/);
  });

  it('exits 1 when a check fails, listing each check', async () => {
    const { code, out } = await cli(['patrol', 'run', 'failing']);
    expect(code).toBe(1);
    expect(out).toMatch(/✔ api \(http_check\)/);
    expect(out).toMatch(/✘ shop \(http_check\) warn: .*503/);
  });

  it('exits 4 when a check could not run, even beside a failing one', async () => {
    const { code, out } = await cli(['patrol', 'run', 'broken']);
    expect(code).toBe(4);
    expect(out).toMatch(/✘ api \(http_check\) critical/);
    expect(out).toMatch(/⚠ probe \(broken_probe\) could not run: .*the probe could not connect/);
  });

  it('exits 2 for a patrol that does not exist, naming the ones that do', async () => {
    const { code, err } = await cli(['patrol', 'run', 'nope']);
    expect(code).toBe(2);
    expect(err).toContain('There is no patrol nope. Patrols: healthy, failing, broken.');
  });
});

describe('opsbot patrol, the other verbs', () => {
  it('lists, shows, pauses, resumes, snoozes and shows history as readable text', async () => {
    const list = await cli(['patrol', 'list']);
    expect(list.code).toBe(0);
    expect(list.out).toContain(
      '• healthy: */5 * * * * (UTC) → playground:ops · 1 checks, none failing · next ',
    );
    const show = await cli(['patrol', 'show', 'failing']);
    expect(show.out).toContain('Patrol failing: */5 * * * * (UTC) → playground:ops');
    expect(show.out).toContain('• shop (http_check, warn): not run yet');

    const paused = await cli(['patrol', 'pause', 'failing', 'for', '2h']);
    expect(paused.code).toBe(0);
    expect(paused.out).toMatch(/^Paused patrol failing until \d{4}-\d\d-\d\d \d\d:\d\d UTC\./);
    expect((await cli(['patrol', 'list'])).out).toMatch(
      /failing: .* paused by Olive until .* next none while paused/,
    );
    const resumed = await cli(['patrol', 'resume', 'failing']);
    expect(resumed.out).toMatch(/^Resumed patrol failing; its next run is /);

    const snoozed = await cli(['patrol', 'snooze', 'failing/shop', '4h']);
    expect(snoozed.code).toBe(0);
    expect(snoozed.out).toMatch(/^Snoozed failing\/shop until .*: nothing is posted for it until then\./);
    expect((await cli(['patrol', 'show', 'failing'])).out).toMatch(
      /shop \(http_check, warn\): not run yet · snoozed until/,
    );

    const history = await cli(['patrol', 'history', 'healthy']);
    expect(history.code).toBe(0);
    expect(history.out).toContain('Patrol healthy has not run yet');
  });

  it('refuses a viewer who pauses or snoozes, with a non-zero exit and the reason', async () => {
    const pause = await cli(['patrol', 'pause', 'healthy', '--as', 'val']);
    expect(pause.code).toBe(1);
    expect(pause.out).toContain('Your role (viewer) may not pause or resume patrols.');
    const snooze = await cli(['patrol', 'snooze', 'healthy', '1h', '--as', 'val']);
    expect(snooze.code).toBe(1);
    expect(snooze.out).toContain('Your role (viewer) may not snooze patrols.');
    expect((await cli(['patrol', 'list', '--as', 'val'])).code).toBe(0);
    const audit = await cli(['audit', '--json']);
    const entries = audit.out
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(entries.filter((e) => e.kind === 'patrol_action' && e.outcome.endsWith('refused'))).toHaveLength(
      2,
    );
  });
});

describe('a patrol with a danger tool', () => {
  it('is refused by opsbot config check, naming the patrol, the check and the line', async () => {
    const { code, out, err } = await cli(['config', 'check'], join(dir, 'danger.yaml'));
    expect(code).toBe(2);
    expect(out).not.toContain('settings OK');
    expect(err).toContain('danger.yaml');
    expect(err).toContain('patrols.nightly.checks[0].tool (line 15)');
    expect(err).toContain('restart_service, a danger tool; a patrol may only run read-only checks');
  });

  it('stops createOpsbot, so start-up refuses it too', async () => {
    const loaded = await loadSettings(join(dir, 'danger.yaml'));
    const start = createOpsbot({
      environment: readEnvironment(environment()),
      settings: loaded.settings,
      chat: nullChatPort,
      logger: recordingLogger([]),
    });
    await expect(start).rejects.toBeInstanceOf(InvalidSettingsError);
    await expect(start).rejects.toThrow(/patrols\.nightly\.checks\[0\]\.tool \(line 15\)/);
  });
});
