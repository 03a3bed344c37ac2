// What scripts rely on, through the real `opsbot` process: exit codes, --as, warnings, config check, closed pipes.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type FakeOpenAIServer, startFakeOpenAIServer, text, toolCalls } from '../fakes/openai-server.js';
import {
  cliEnvironment,
  collect,
  runCliInProcess,
  runCliProcess,
  startCli,
  waitForOutput,
} from './cli-process.js';

let fake: FakeOpenAIServer;
let dir: string;

beforeEach(async () => {
  fake = await startFakeOpenAIServer();
  dir = mkdtempSync(join(tmpdir(), 'opsbot-cli-exit-'));
  writeFileSync(
    join(dir, 'opsbot.yaml'),
    [
      'permissions:',
      '  roles:',
      '    admin: { tools: ["*"], approve: ["*"], admin: true }',
      '  identities:',
      "    'local:operator': { roles: [admin], display_name: Olive }",
      "    'local:bob': { roles: [admin], display_name: Bob }",
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

function env(model: 'fake' | 'none' | NodeJS.ProcessEnv = 'fake'): NodeJS.ProcessEnv {
  const modelVariables =
    model === 'fake'
      ? { OPENAI_BASE_URL: fake.baseURL, OPENAI_MODEL: 'fake-model' }
      : model === 'none'
        ? {}
        : model;
  return cliEnvironment({
    OPSBOT_CONFIG: join(dir, 'opsbot.yaml'),
    OPSBOT_DATA_DIR: join(dir, 'data'),
    OPSBOT_STORE_URL: `sqlite://${join(dir, 'data', 'opsbot.sqlite')}`,
    ...modelVariables,
  });
}

describe('exit codes', () => {
  it('exits 1 when a check fails, 0 when it passes', async () => {
    const failed = await runCliProcess(['run', 'http_check url=http://127.0.0.1:1/'], env('none'));
    expect(failed.stdout).toContain('✘');
    expect(failed.code).toBe(1);
    const passed = await runCliProcess(['run', 'disk_usage paths=/'], env('none'));
    expect(passed.code).toBe(0);
  });

  it('exits 3 when the run is left waiting for an answer', async () => {
    fake.reply(toolCalls([{ name: 'ask_user', arguments: { question: 'Which path?' } }]));
    const waiting = await runCliProcess(['run', 'check the disk'], env());
    expect(waiting.code).toBe(3);
    expect(waiting.stdout).toMatch(/opsbot answer run_[0-9a-f]+ "<answer>"/);
  });

  it('answers a waiting run later, where a bare number picks that choice, as at the prompt', async () => {
    fake.reply(
      toolCalls([{ name: 'ask_user', arguments: { question: 'Which path?', choices: ['/', '/tmp'] } }]),
    );
    const waiting = await runCliProcess(['run', 'check the disk'], env());
    expect(waiting.code).toBe(3);
    const runId = /opsbot answer (run_[0-9a-f]+)/.exec(waiting.stdout)![1]!;
    fake.reply(text('/tmp is fine'));
    const answered = await runCliProcess(['answer', runId, '2'], env());
    expect(answered.code).toBe(0);
    expect(answered.stdout).toContain('/tmp is fine');
    expect(JSON.parse(fake.requests.at(-1)!.body.messages!.at(-1)!.content as string)).toMatchObject({
      answer: '/tmp',
    });
  });

  it('documents every code in --help', async () => {
    const help = await runCliProcess(['--help'], env('none'));
    expect(help.code).toBe(0);
    for (const code of ['0  done', '1  failed', '2  usage', '3  waiting', '4  patrol run only'])
      expect(help.stdout).toContain(code);
  });
});

describe('silent fallbacks are said out loud', () => {
  it('refuses an unknown --as user, with a did-you-mean, instead of acting as a viewer', async () => {
    const typo = await runCliProcess(['whoami', '--as', 'bobb'], env('none'));
    expect(typo.code).toBe(2);
    expect(typo.stdout).toBe('');
    expect(typo.stderr).toContain('there is no local user "bobb" (did you mean "bob"?)');
    expect(typo.stderr).toContain('Local users: operator, bob');
    const known = await runCliProcess(['whoami', '--as', 'bob'], env('none'));
    expect(known.code).toBe(0);
    expect(known.stdout.trim()).toBe('Bob: role admin.');
  });

  it('warns when OPENAI_MODEL is set without a base URL or key', async () => {
    const run = await runCliProcess(
      ['run', 'disk_usage paths=/'],
      env({ OPENAI_MODEL: 'qwen2.5:7b-instruct' }),
    );
    expect(run.code).toBe(0);
    expect(run.stderr).toMatch(
      /warning: OPENAI_MODEL=qwen2.5:7b-instruct is set, but neither OPENAI_BASE_URL/,
    );
    const check = await runCliProcess(['config', 'check'], env({ OPENAI_MODEL: 'qwen2.5:7b-instruct' }));
    expect(check.stdout).toMatch(/⚠ OPENAI_MODEL=qwen2.5:7b-instruct is set, but neither/);
  });
});

describe('opsbot config check', () => {
  it('asks the model server for the model, and says it is there', async () => {
    const check = await runCliProcess(['config', 'check'], env());
    expect(check.code).toBe(0);
    expect(check.stdout).toContain(`✔ model "fake-model" at ${fake.baseURL} is reachable and available`);
    expect(
      fake.requests.some((request) => request.method === 'GET' && request.path.endsWith('/models')),
    ).toBe(true);
  });

  it('warns of a tool that needs two approvers when only one person may approve it', async () => {
    writeFileSync(
      join(dir, 'opsbot.yaml'),
      [
        'permissions:',
        '  roles:',
        '    admin: { tools: ["*"], approve: ["*"], admin: true }',
        '    sre: { tools: ["*"], two_person: [restart_*] }',
        '  identities:',
        "    'local:operator': { roles: [sre] }",
        "    'local:bob': { roles: [admin], display_name: Bob }",
        'tools:',
        '  allowed_executables: [/bin/true]',
        '  commands:',
        '    restart_api:',
        '      description: Restart the api service. Use when it is stuck.',
        '      argv: [/bin/true]',
        '      risk: danger',
        '',
      ].join('\n'),
    );
    const check = await runCliInProcess(['config', 'check'], env('none'));
    expect(check.code).toBe(0);
    expect(check.out).toContain(
      "⚠ restart_api needs two approvers (role sre's two_person), but only Bob may approve it (the admin role), " +
        'so every call of it that needs an approval will be refused. In opsbot.yaml, give a second person, or a ' +
        'group, the admin role under permissions.identities',
    );
  });

  it('exits 1 when the server does not have the model, naming those it has', async () => {
    const check = await runCliProcess(
      ['config', 'check'],
      env({ OPENAI_BASE_URL: fake.baseURL, OPENAI_MODEL: 'fake-modle' }),
    );
    expect(check.code).toBe(1);
    expect(check.stdout).toContain(`✘ the server at ${fake.baseURL} answers, but has no model "fake-modle"`);
    expect(check.stdout).toContain('it serves: fake-model');
  });

  it('exits 1 with a clear message when the model server is unreachable', async () => {
    const port = await closedPort();
    const check = await runCliProcess(
      ['config', 'check'],
      env({ OPENAI_BASE_URL: `http://127.0.0.1:${port}/v1`, OPENAI_MODEL: 'fake-model' }),
    );
    expect(check.code).toBe(1);
    expect(check.stdout).toContain('✔ settings OK');
    expect(check.stdout).toContain(
      `✘ model "fake-model" at http://127.0.0.1:${port}/v1 is unreachable (ECONNREFUSED); is the server running`,
    );
  });
});

/** A port nothing listens on: one the system just gave out and took back. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('a closed pipe', () => {
  it('ends quietly when the reader stops early, as `opsbot run … | head -3` does', async () => {
    fake.reply(
      toolCalls([{ name: 'system_stats', arguments: {} }]),
      text(Array.from({ length: 200 }, (_, index) => `line ${index}`).join('\n'), { delayMs: 500 }),
    );
    const child = startCli(['run', 'how is this host?'], env());
    child.stdin.end();
    const result = collect(child);
    await waitForOutput(child.stdout, /▸ system_stats/);
    // The reader goes away, like `head` after its lines; opsbot's next writes meet a closed pipe.
    child.stdout.destroy();
    const { code, stderr } = await result;
    expect(stderr).not.toMatch(/EPIPE|Error|at .*\.ts:\d+/);
    expect(code).toBe(0);
  });
});
