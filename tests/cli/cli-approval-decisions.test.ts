// `opsbot approve` and `opsbot deny` for scripts: 0 when the decision was made, 1 when it was refused or too late;
// and the terminal's card says what the approved call will run and what that does.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../../bot/cli/main.js';
import { type FakeOpenAIServer, startFakeOpenAIServer, text, toolCalls } from '../fakes/openai-server.js';

let fake: FakeOpenAIServer;
let dir: string;

beforeEach(async () => {
  fake = await startFakeOpenAIServer();
  dir = mkdtempSync(join(tmpdir(), 'opsbot-cli-decide-'));
  writeFileSync(
    join(dir, 'opsbot.yaml'),
    [
      'permissions:',
      '  roles:',
      '    operator: { tools: ["*"], risks: [read, write, danger] }',
      '    admin: { tools: ["*"], risks: [read, write, danger], approve: ["*"] }',
      '    viewer: { tools: ["*"], risks: [read] }',
      '  identities:',
      "    'local:olive': { roles: [operator], display_name: Olive }",
      "    'local:bob': { roles: [admin], display_name: Bob }",
      "    'local:vera': { roles: [viewer], display_name: Vera }",
      'tools:',
      '  allowed_executables: [/bin/echo, /usr/bin/echo]',
      '  commands:',
      '    restart_service:',
      '      description: Restart a service. Use when it is stuck. Do not use to deploy.',
      '      argv: [echo, restarting, "{service}"]',
      '      risk: danger',
      '      impact: restarts the api; about 20 s of 502s',
      '      parameters:',
      '        service: { description: Which service }',
      '',
    ].join('\n'),
  );
});
afterEach(async () => {
  await fake.close();
  rmSync(dir, { recursive: true, force: true });
});

async function cli(argv: string[], input = '') {
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
  stdin.end(input);
  const env: NodeJS.ProcessEnv = {
    OPSBOT_CONFIG: join(dir, 'opsbot.yaml'),
    OPSBOT_DATA_DIR: join(dir, 'data'),
    OPSBOT_STORE_URL: `sqlite://${join(dir, 'data', 'opsbot.sqlite')}`,
    OPENAI_BASE_URL: fake.baseURL,
    OPENAI_MODEL: 'fake-model',
  };
  const code = await runCli(argv, { env, stdout, stderr, stdin, interactive: false });
  return { code, out };
}

/** Olive asks for a restart of the api; it waits for an approver. */
async function waitingRestart() {
  fake.reply(toolCalls([{ name: 'restart_service', arguments: { service: 'api' } }]));
  const asked = await cli(['run', 'restart the api', '--as', 'olive']);
  expect(asked.code).toBe(3);
  const approvalId = /opsbot approve (apv_[\w-]+)/.exec(asked.out)?.[1];
  if (!approvalId) throw new Error(`no approval id in:\n${asked.out}`);
  return { asked, approvalId };
}

describe('opsbot approve and opsbot deny', () => {
  it('exit 1 when refused or too late, 0 when the decision is made', async () => {
    const { approvalId } = await waitingRestart();
    const own = await cli(['approve', approvalId, '--as', 'olive']);
    expect(own.out).toMatch(/someone else has to approve/);
    expect(own.code).toBe(1);
    const viewer = await cli(['deny', approvalId, 'not now', '--as', 'vera']);
    expect(viewer.out).toMatch(/only someone with the admin role/);
    expect(viewer.code).toBe(1);
    fake.reply(text('Left it alone.'));
    const denied = await cli(['deny', approvalId, 'peak traffic', '--as', 'bob']);
    expect(denied.out).toMatch(/Denied by Bob/);
    expect(denied.code).toBe(0);
    const late = await cli(['approve', approvalId, '--as', 'bob']);
    expect(late.out).toMatch(/Already denied by Bob/);
    expect(late.code).toBe(1);
    const unknown = await cli(['approve', 'apv_nothing_run_0000000000000000', '--as', 'bob']);
    expect(unknown.code).toBe(1);
  });

  it('exit 1 in interactive mode too when the last command was a refused decision', async () => {
    const { approvalId } = await waitingRestart();
    const own = await cli(['--as', 'olive'], `approve ${approvalId}\n`);
    expect(own.out).toMatch(/someone else has to approve/);
    expect(own.code).toBe(1);
  });

  it('prints on the card the exact command with its argument filled in, and the impact', async () => {
    const { asked } = await waitingRestart();
    expect(asked.out).toContain('will run:  echo restarting api');
    expect(asked.out).toContain('impact:    restarts the api; about 20 s of 502s');
  });
});
