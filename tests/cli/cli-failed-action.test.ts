// `opsbot run` exits 1 when a write or danger action failed, even when the model then says all is well; and a
// model that is retried is said on the terminal, not left as silence.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { type AddressInfo, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../../bot/cli/main.js';
import {
  type FakeOpenAIServer,
  hang,
  startFakeOpenAIServer,
  status,
  text,
  toolCalls,
} from '../fakes/openai-server.js';

let fake: FakeOpenAIServer;
let dir: string;

beforeEach(async () => {
  fake = await startFakeOpenAIServer();
  dir = mkdtempSync(join(tmpdir(), 'opsbot-cli-action-'));
  writeFileSync(
    join(dir, 'opsbot.yaml'),
    [
      'permissions:',
      '  roles:',
      '    operator: { tools: ["*"], risks: [read, write, danger], write_without_approval: true }',
      '    admin: { tools: ["*"], risks: [read, write, danger], approve: ["*"] }',
      '    viewer: { tools: ["*"], risks: [read] }',
      '  identities:',
      "    'local:olive': { roles: [operator], display_name: Olive }",
      "    'local:bob': { roles: [admin], display_name: Bob }",
      "    'local:vera': { roles: [viewer], display_name: Vera }",
      'limits:',
      '  model_retries: 1',
      '  model_timeout: 1s',
      'tools:',
      '  allowed_executables: [/bin/false, /usr/bin/false]',
      '  commands:',
      '    mark_deployed:',
      '      description: Mark the release as deployed. Use after a deploy. Do not use otherwise.',
      "      argv: ['false']",
      '      risk: write',
      '    restart_app:',
      '      description: Restart the app.',
      "      argv: ['false']",
      '      risk: danger',
      '',
    ].join('\n'),
  );
});
afterEach(async () => {
  await fake.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A port nothing listens on: taken, then let go. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function cli(argv: string[]) {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const stdin = new PassThrough();
  let out = '';
  let err = '';
  stderr.on('data', (chunk) => {
    err += chunk;
  });
  stdout.on('data', (chunk) => {
    out += chunk;
  });
  stdin.end();
  const env: NodeJS.ProcessEnv = {
    OPSBOT_CONFIG: join(dir, 'opsbot.yaml'),
    OPSBOT_DATA_DIR: join(dir, 'data'),
    OPSBOT_STORE_URL: `sqlite://${join(dir, 'data', 'opsbot.sqlite')}`,
    OPENAI_BASE_URL: fake.baseURL,
    OPENAI_MODEL: 'fake-model',
  };
  const code = await runCli(argv, { env, stdout, stderr, stdin, interactive: false });
  return { code, out: `${out}${err}` };
}

describe('opsbot run and a failed action', () => {
  it('prints the action as failed and exits 1, whatever the model says afterwards', async () => {
    fake.reply(toolCalls([{ name: 'mark_deployed', arguments: {} }]), text('Marked as deployed.'));
    const { code, out } = await cli(['run', 'mark the release deployed', '--as', 'olive']);
    expect(out).toMatch(/✘ mark_deployed failed: /);
    expect(out).toContain('Marked as deployed.');
    expect(out).toMatch(/run run_[0-9a-f]+: finished, with a problem/);
    expect(code).toBe(1);
  });

  it('exits 1 when the check the model ran failed, whatever the model says afterwards', async () => {
    const port = await closedPort();
    fake.reply(
      toolCalls([{ name: 'http_check', arguments: { url: `http://127.0.0.1:${port}/` } }]),
      text('The service is fine.'),
    );
    const { code, out } = await cli(['run', 'is the service up?', '--as', 'olive']);
    expect(out).toMatch(/✗ http_check: GET http:\/\/127\.0\.0\.1:\d+\/ failed: /);
    expect(out).toContain('The service is fine.');
    expect(out).toMatch(/run run_[0-9a-f]+: finished, with a problem/);
    expect(code).toBe(1);
  });

  it('does not run a failed check again to fail the same way: the model is told, and the run ends with a problem', async () => {
    let requests = 0;
    const failing = createHttpServer((_request, response) => {
      requests += 1;
      response.writeHead(503).end('down');
    });
    await new Promise<void>((resolve) => failing.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(failing.address() as AddressInfo).port}/`;
    try {
      fake.reply(
        toolCalls([{ name: 'http_check', arguments: { url } }]),
        toolCalls([{ name: 'http_check', arguments: { url } }]),
        text('It is down.'),
      );
      const { code, out } = await cli(['run', 'is it up?', '--as', 'olive']);
      expect(requests).toBe(1);
      expect(out).toMatch(/http_check with these arguments failed the same way at step 1: /);
      const told = fake.requests[2]?.body.messages?.filter(
        (message) => message.role === 'tool' && String(message.content).includes('failed the same way'),
      );
      expect(told).toHaveLength(1);
      expect(out).toMatch(/run run_[0-9a-f]+: finished, with a problem/);
      expect(code).toBe(1);
    } finally {
      await new Promise((resolve) => failing.close(resolve));
    }
  });

  it("shows a refused action under the model's answer, and exits 1, when the model says it was done", async () => {
    fake.reply(toolCalls([{ name: 'restart_app', arguments: {} }]), text('Restarted the app (or tried to).'));
    const { code, out } = await cli(['run', 'restart the app', '--as', 'vera']);
    expect(out).toContain('Restarted the app (or tried to).');
    expect(out).toMatch(/Note: restart_app was refused: /);
    // The bot's own card, before the answer, naming the rule.
    expect(out).toMatch(
      /✘ restart_app was refused, and did not run: Your role \(viewer\) may not use restart_app/,
    );
    expect(out).toMatch(/run run_[0-9a-f]+: finished, with a problem/);
    expect(code).toBe(1);
  });

  it('runs a check again after an action, instead of repeating its result from before the action', async () => {
    let requests = 0;
    const service = createHttpServer((_request, response) => {
      requests += 1;
      response.writeHead(200).end('ok');
    });
    await new Promise<void>((resolve) => service.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(service.address() as AddressInfo).port}/`;
    try {
      fake.reply(
        toolCalls([{ name: 'http_check', arguments: { url } }]),
        toolCalls([{ name: 'http_check', arguments: { url } }]),
        toolCalls([{ name: 'mark_deployed', arguments: {} }]),
        toolCalls([{ name: 'http_check', arguments: { url } }]),
        text('Checked before and after.'),
      );
      const asked = await cli(['run', 'check, deploy, check', '--as', 'olive']);
      // The task does not name mark_deployed, and it follows a read: a Confirm only Olive may give, even on the
      // CLI, where Bob, who may approve anything, is refused.
      expect(asked.out).toContain('Confirm needed');
      const approvalId = /opsbot approve (apv_[\w-]+)/.exec(asked.out)?.[1];
      const byBob = await cli(['approve', approvalId!, '--as', 'bob']);
      expect(byBob.out).toContain('Only Olive, who asked for this run, can confirm or deny this');
      const confirmed = await cli(['approve', approvalId!, '--as', 'olive']);
      const out = `${asked.out}${confirmed.out}`;
      // The second check repeats the first (nothing changed in between), saying how old its result is; the one
      // after the action runs for real.
      expect(requests).toBe(2);
      expect(out).toMatch(/repeat of call_[\w-]+: not run again/);
      const repeat = fake.requests[2]?.body.messages?.find(
        (message) => message.role === 'tool' && String(message.content).includes('repeat_of'),
      );
      expect(JSON.parse(String(repeat?.content))).toMatchObject({ age_seconds: expect.any(Number) });
    } finally {
      await new Promise((resolve) => service.close(resolve));
    }
  });

  it('opsbot approve exits 1 when the action it approved fails, so `approve && next` stops there', async () => {
    fake.reply(toolCalls([{ name: 'restart_app', arguments: {} }]), text('Restarted.'));
    const asked = await cli(['run', 'restart the app', '--as', 'olive']);
    expect(asked.code).toBe(3);
    const approvalId = /opsbot approve (apv_[\w-]+)/.exec(asked.out)?.[1];
    expect(approvalId).toBeDefined();
    const approved = await cli(['approve', approvalId!, '--as', 'bob']);
    expect(approved.out).toMatch(/✘ restart_app \(approved by Bob\) failed: /);
    expect(approved.code).toBe(1);
  });

  it('says on the terminal that the model is being retried, then carries on', async () => {
    fake.reply(hang(), text('All quiet.'));
    const { code, out } = await cli(['run', 'anything odd tonight?', '--as', 'olive']);
    expect(out).toMatch(/… Waiting for the model: no answer within 1 s, so trying again \(attempt 2 of 2\)/);
    expect(out).toContain('All quiet.');
    expect(code).toBe(0);
  });
});

describe('opsbot run while the model is down', () => {
  it('runs a typed command on the command engine, says why, and exits 0', async () => {
    fake.reply(status(503), status(503));
    const { code, out } = await cli(['run', 'disk_usage paths=/', '--as', 'olive']);
    expect(out).toMatch(/✓ disk_usage: \/ is [\d.]+% full/);
    expect(out).toMatch(
      /Note: the model "fake-model" at \S+ is unreachable since \d{4}-\d\d-\d\d \d\d:\d\d UTC \(503 Service Unavailable after 2 attempts\), so this ran as a typed command, without the model\./,
    );
    expect(out).toMatch(/run run_[0-9a-f]+: finished ·/);
    expect(code).toBe(0);
  });

  it('fails free text with when and why the model is unreachable, and the commands that still work', async () => {
    fake.reply(status(503), status(503));
    const { code, out } = await cli(['run', 'why is the disk full?', '--as', 'vera']);
    expect(out).toMatch(
      /is unreachable since \d{4}-\d\d-\d\d \d\d:\d\d UTC \(503 Service Unavailable after 2 attempts\)\./,
    );
    // Vera is a viewer: only the commands her role may run are offered.
    expect(out).toMatch(/Typed commands still work without the model: http_check, .*disk_usage/);
    expect(out).not.toMatch(/restart_app/);
    expect(code).toBe(1);
  });
});
