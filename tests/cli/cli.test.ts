// The `opsbot` CLI end to end: real settings, SQLite store, traces, and the fake OpenAI server.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../../bot/cli/main.js';
import { startFakeConnectProxy } from '../fakes/connect-proxy.js';
import {
  type FakeOpenAIServer,
  startFakeOpenAIServer,
  status,
  text,
  toolCalls,
} from '../fakes/openai-server.js';

let fake: FakeOpenAIServer;
let dir: string;

beforeEach(async () => {
  fake = await startFakeOpenAIServer();
  dir = mkdtempSync(join(tmpdir(), 'opsbot-cli-'));
  writeFileSync(
    join(dir, 'opsbot.yaml'),
    [
      'permissions:',
      '  roles:',
      '    admin: { tools: ["*"], approve: ["*"], admin: true }',
      '  identities:',
      "    'local:operator': { roles: [admin], display_name: Olive }",
      "    'local:carol': { roles: [viewer], display_name: Carol }",
      'limits:',
      '  model_retries: 0',
      '',
    ].join('\n'),
  );
});
afterEach(async () => {
  await fake.close();
  rmSync(dir, { recursive: true, force: true });
});

async function cli(
  argv: string[],
  options: { model?: boolean; input?: string; config?: string; env?: NodeJS.ProcessEnv } = {},
) {
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
  if (options.input !== undefined) stdin.end(options.input);
  else stdin.end();
  const env: NodeJS.ProcessEnv = {
    OPSBOT_CONFIG: options.config ?? join(dir, 'opsbot.yaml'),
    OPSBOT_DATA_DIR: join(dir, 'data'),
    OPSBOT_STORE_URL: `sqlite://${join(dir, 'data', 'opsbot.sqlite')}`,
    LOG_LEVEL: 'error',
    ...(options.model === false ? {} : { OPENAI_BASE_URL: fake.baseURL, OPENAI_MODEL: 'fake-model' }),
    ...options.env,
  };
  const code = await runCli(argv, { env, stdout, stderr, stdin, interactive: false });
  return { code, out, err };
}

describe('opsbot CLI', () => {
  it('runs a task, prints each step as it happens, and exits 0', async () => {
    fake.reply(toolCalls([{ name: 'system_stats', arguments: {} }]), text('The host is healthy.'));
    const { code, out } = await cli(['run', 'how is this host?']);
    expect(code).toBe(0);
    expect(out).toContain('▸ system_stats');
    expect(out).toMatch(/✓ system_stats: Load/);
    expect(out).toContain('The host is healthy.');
    expect(out).toMatch(/run run_[0-9a-f]+: finished/);
  });

  it('asks its question on stdin and continues with the answer', async () => {
    fake.reply(
      toolCalls([{ name: 'ask_user', arguments: { question: 'Which path?', choices: ['/', '/tmp'] } }]),
      toolCalls([{ name: 'disk_usage', arguments: { paths: ['/tmp'] } }]),
      text('/tmp is fine'),
    );
    const { code, out } = await cli(['run', 'check the disk'], { input: '2\n' });
    expect(code).toBe(0);
    expect(out).toContain('Which path?');
    expect(out).toContain('2) /tmp');
    expect(JSON.parse(fake.requests[1]!.body.messages!.at(-1)!.content as string)).toMatchObject({
      answer: '/tmp',
    });
  });

  it('exits 3 and says how to answer later when no answer can be read', async () => {
    fake.reply(toolCalls([{ name: 'ask_user', arguments: { question: 'Which path?' } }]));
    const { code, out } = await cli(['run', 'check the disk']);
    expect(code).toBe(3);
    expect(out).toMatch(/opsbot answer run_[0-9a-f]+ "<answer>"/);
  });

  it('exits 1 with a clear message when the model is down', async () => {
    fake.reply(status(503));
    const { code, out } = await cli(['run', 'check']);
    expect(code).toBe(1);
    expect(out).toMatch(/is unreachable since \d{4}-\d\d-\d\d \d\d:\d\d UTC \(503 Service Unavailable\)/);
    expect(out).toMatch(/Typed commands still work without the model: http_check, /);
  });

  it('runs commands without a model, and prints the trace of a run', async () => {
    const { code, out } = await cli(['run', 'disk_usage', 'paths=/'], { model: false });
    expect(code).toBe(0);
    expect(out).toMatch(/✔ \/ is [\d.]+% full/);
    const runId = /run (run_[0-9a-f]+): finished/.exec(out)![1]!;
    const trace = await cli(['trace', runId], { model: false });
    expect(trace.code).toBe(0);
    expect(trace.out).toContain(runId);
    expect(trace.out).toContain('disk_usage');
  });

  it('shows a run in full: each call with its whole output, and the whole answer, redacted', async () => {
    const long = `${'x'.repeat(70_000)} the end`;
    fake.reply(
      toolCalls([{ name: 'disk_usage', arguments: { paths: ['/'] } }]),
      text(`The disk is fine. ${long} token ghp_abcdefghijklmnopqrstuvwxyz0123456789`),
    );
    const { out } = await cli(['run', 'how full is the disk?']);
    const runId = /run (run_[0-9a-f]+): finished/.exec(out)![1]!;
    const shown = await cli(['show', runId]);
    expect(shown.code).toBe(0);
    expect(shown.out).toContain(`run ${runId}: finished · react engine`);
    expect(shown.out).toContain('Task:\nhow full is the disk?');
    expect(shown.out).toMatch(/── disk_usage \{"paths":\["\/"\]\}\n\{\n {2}"tool": "disk_usage"/);
    expect(shown.out).toContain(`Answer:\nThe disk is fine. ${long}`);
    expect(shown.out).not.toContain('ghp_abcdefghijklmnopqrstuvwxyz0123456789');
    const missing = await cli(['show', 'run_0000000000000000']);
    expect(missing.code).toBe(1);
    expect(missing.err).toContain('there is no run run_0000000000000000');
  });

  it('checks the settings, and reports a bad file with its key and line', async () => {
    const ok = await cli(['config', 'check']);
    expect(ok.code).toBe(0);
    expect(ok.out).toContain('settings OK');
    expect(ok.out).toContain('store reachable');
    const bad = join(dir, 'bad.yaml');
    writeFileSync(bad, 'limits:\n  max_steps: lots\n');
    const failed = await cli(['config', 'check'], { config: bad });
    expect(failed.code).toBe(2);
    expect(failed.err).toContain('bad.yaml');
    expect(failed.err).toContain('limits.max_steps');
    expect(failed.err).toMatch(/line 2/);
  });

  it('says which proxy the model is reached through, and checks the model through it', async () => {
    const egress = await startFakeConnectProxy();
    try {
      const { code, out } = await cli(['config', 'check'], { env: { HTTP_PROXY: egress.url } });
      expect(code).toBe(0);
      expect(out).toContain(`model: fake-model at ${fake.baseURL} (through proxy ${egress.url})`);
      expect(out).toContain(`✔ model "fake-model" at ${fake.baseURL} is reachable and available`);
      expect(egress.connects).toEqual([`CONNECT ${new URL(fake.baseURL).host}`]);
    } finally {
      await egress.close();
    }
  });

  it('prints and exports the audit log', async () => {
    fake.reply(text('fine'));
    await cli(['run', 'check']);
    const table = await cli(['audit', '--since', '1h']);
    expect(table.code).toBe(0);
    expect(table.out).toMatch(/request\s+Olive <local:operator> on cli/);
    const json = await cli(['audit', '--json']);
    const entries = json.out
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(entries[0]).toMatchObject({
      kind: 'request',
      actor: { key: 'local:operator', displayName: 'Olive', surface: 'cli' },
    });
    expect((await cli(['audit', '--since', 'yesterday-ish'])).code).toBe(2);
  });

  it('waits for approval, refuses the requester, and runs the call once when an approver approves', async () => {
    const yaml = join(dir, 'approvals.yaml');
    writeFileSync(
      yaml,
      [
        'permissions:',
        '  roles:',
        '    operator: { tools: ["*"], risks: [read, write, danger] }',
        '    admin: { tools: ["*"], approve: ["*"], admin: true }',
        '  identities:',
        "    'local:alice': { roles: [operator], display_name: Alice }",
        "    'local:bob': { roles: [admin], display_name: Bob }",
        'tools:',
        '  allowed_executables: [/bin/echo, /usr/bin/echo]',
        '  commands:',
        '    say_hello:',
        '      description: Print a greeting. Use when testing. Do not use otherwise.',
        '      argv: [echo, hello, "{name}"]',
        '      risk: danger',
        '      parameters:',
        '        name: { description: Who to greet }',
        '',
      ].join('\n'),
    );
    fake.reply(
      toolCalls([{ name: 'say_hello', arguments: { name: 'world' } }], { content: 'greeting as asked' }),
    );
    const waiting = await cli(['run', 'greet the world', '--as', 'alice'], { config: yaml });
    expect(waiting.code).toBe(3);
    expect(waiting.out).toContain('Approval needed');
    const approvalId = /opsbot approve (apv_[\w-]+)/.exec(waiting.out)![1]!;
    const own = await cli(['approve', approvalId, '--as', 'alice'], { config: yaml });
    expect(own.code).toBe(1);
    expect(own.out).toMatch(/someone else has to approve/);
    fake.reply(text('greeted'));
    const approved = await cli(['approve', approvalId, '--as', 'bob'], { config: yaml });
    expect(approved.code).toBe(0);
    expect(approved.out).toMatch(/Approved by Bob/);
    // The program's own output, not the card's "will run" line, which says the same words.
    expect(approved.out).toContain('"stdout":"hello world\\n"');
    const again = await cli(['approve', approvalId, '--as', 'bob'], { config: yaml });
    expect(again.out).toMatch(/Already approved by Bob/);
  });

  it('tells the terminal user their roles and permissions', async () => {
    const whoami = await cli(['whoami']);
    expect(whoami.out.trim()).toBe('Olive: role admin.');
    const viewer = await cli(['permissions', '--as', 'carol']);
    expect(viewer.out).toMatch(/Roles: viewer/);
    expect(viewer.out).toMatch(/Tools you can use here: .*disk_usage/);
    const unknown = await cli(['permissions', '--as', 'nobody']);
    expect(unknown.code).toBe(2);
    expect(unknown.err).toMatch(/there is no local user "nobody"/);
  });

  it('rejects unknown commands and missing arguments with usage', async () => {
    expect((await cli(['frobnicate'])).code).toBe(2);
    const missing = await cli(['run']);
    expect(missing.code).toBe(2);
    expect(missing.err).toContain('Usage: opsbot');
  });
});
