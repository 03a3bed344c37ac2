// Interactive mode (`opsbot` with no command) driven as a person would, through piped stdin: its own commands,
// approvals made in another terminal, and Markdown rendered for the terminal.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type FakeOpenAIServer, startFakeOpenAIServer, text, toolCalls } from '../fakes/openai-server.js';
import { cliEnvironment, collect, liveOutput, runCliProcess, startCli } from './cli-process.js';

let fake: FakeOpenAIServer;
let dir: string;

beforeEach(async () => {
  fake = await startFakeOpenAIServer();
  dir = mkdtempSync(join(tmpdir(), 'opsbot-cli-interactive-'));
  writeFileSync(
    join(dir, 'opsbot.yaml'),
    [
      'permissions:',
      '  roles:',
      '    operator: { tools: ["*"], risks: [read, write, danger] }',
      '    admin: { tools: ["*"], approve: ["*"], admin: true }',
      '  identities:',
      "    'local:operator': { roles: [admin], display_name: Olive }",
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

function env(model = true): NodeJS.ProcessEnv {
  return cliEnvironment({
    OPSBOT_CONFIG: join(dir, 'opsbot.yaml'),
    OPSBOT_DATA_DIR: join(dir, 'data'),
    OPSBOT_STORE_URL: `sqlite://${join(dir, 'data', 'opsbot.sqlite')}`,
    ...(model ? { OPENAI_BASE_URL: fake.baseURL, OPENAI_MODEL: 'fake-model' } : {}),
  });
}

describe('interactive mode', () => {
  it('answers help, whoami and status itself, without starting a task', async () => {
    const session = await runCliProcess(['--as', 'alice'], env(), 'help\nwhoami\nstatus\nexit\n');
    expect(session.code).toBe(0);
    // help shows each tool with its arguments.
    expect(session.stdout).toMatch(/disk_usage \[max_percent=…\] \[paths=…\]|disk_usage .*paths=…/);
    expect(session.stdout).toMatch(/paths \(list of string, comma-separated/);
    expect(session.stdout).toMatch(
      /Tools that wait for an approver\n {2}say_hello name=… \(needs approval\)/,
    );
    expect(session.stdout).toMatch(/name \(string, required\): Who to greet/);
    expect(session.stdout).toContain('approve apv_…');
    expect(session.stdout).toContain('Alice: role operator.');
    expect(session.stdout).toContain('You have no active runs.');
    // Nothing went to the model, and no run was started.
    expect(fake.requests.filter((request) => request.path.endsWith('/chat/completions'))).toHaveLength(0);
    expect(session.stdout).not.toMatch(/run run_[0-9a-f]+:/);
  });

  it('answers grants and revoke itself: the list, how to use revoke, and a grant that is not there', async () => {
    const session = await runCliProcess(
      ['--as', 'bob'],
      env(),
      'grants\nrevoke\nrevoke grt_0123456789abcdef\nexit\n',
    );
    expect(session.stdout).toContain('No approval grants in force.');
    expect(session.stdout).toContain('`revoke` needs a grant id. `revoke grt_…` ends that grant');
    expect(session.stdout).toContain('There is no live grant grt_0123456789abcdef');
    expect(fake.requests.filter((request) => request.path.endsWith('/chat/completions'))).toHaveLength(0);
  });

  it('shows an approval made in another terminal, and the approved call running there', async () => {
    fake.reply(toolCalls([{ name: 'say_hello', arguments: { name: 'world' } }], { content: 'greeting' }));
    const alice = startCli(['--as', 'alice'], env());
    const aliceDone = collect(alice);
    const output = liveOutput(alice.stdout);
    alice.stdin.write('greet the world\n');
    const waiting = await output.until(/opsbot approve (apv_[\w-]+)/);
    const approvalId = /opsbot approve (apv_[\w-]+)/.exec(waiting)![1]!;
    fake.reply(text('**Greeted** the world.'));
    const bob = await runCliProcess(['approve', approvalId, '--as', 'bob'], env());
    expect(bob.code).toBe(0);
    const seen = await output.until(/run run_[0-9a-f]+: finished/);
    expect(seen).toMatch(new RegExp(`✔ ${approvalId} approved by [^\\n]*bob`));
    expect(seen).toContain('✓ say_hello: ');
    expect(seen).toContain('Greeted the world.');
    alice.stdin.end('exit\n');
    await aliceDone;
  });

  it('approves and denies with its own commands, and answers a run by number', async () => {
    fake.reply(toolCalls([{ name: 'say_hello', arguments: { name: 'world' } }], { content: 'greeting' }));
    const requested = await runCliProcess(['run', 'greet the world', '--as', 'alice'], env());
    expect(requested.code).toBe(3);
    const approvalId = /opsbot approve (apv_[\w-]+)/.exec(requested.stdout)![1]!;
    fake.reply(
      toolCalls([{ name: 'ask_user', arguments: { question: 'Try again later?', choices: ['yes', 'no'] } }]),
    );
    const bob = await runCliProcess(['--as', 'bob'], env(), `deny ${approvalId} not on a Friday\nexit\n`);
    expect(bob.stdout).toMatch(/Denied by Bob/);
    // The card says it would have run `echo hello world`; nothing did.
    expect(bob.stdout).not.toMatch(/exited with code|"stdout":"hello world/);
    const runId = /(run_[0-9a-f]+)/.exec(requested.stdout)![1]!;
    fake.reply(text('Understood.'));
    const answered = await runCliProcess(['--as', 'alice'], env(), `answer ${runId} 2\nexit\n`);
    expect(answered.stdout).toContain('Understood.');
    const lastAnswer = fake.requests.at(-1)!.body.messages!.at(-1)!.content as string;
    expect(JSON.parse(lastAnswer)).toMatchObject({ answer: 'no' });
  });

  it('renders the model’s Markdown for the terminal', async () => {
    fake.reply(
      text(
        [
          '## Disk',
          '**All good**: `/` is at 40%.',
          '- / is fine',
          '',
          '| path | used |',
          '|------|-----:|',
          '| / | 40% |',
          '| /var/log | 91% |',
        ].join('\n'),
      ),
    );
    const session = await runCliProcess([], env(), 'how are the disks?\nexit\n');
    expect(session.stdout).toContain('All good: / is at 40%.');
    expect(session.stdout).toContain('  • / is fine');
    expect(session.stdout).toMatch(
      / {2}path {6}used\n {2}─{8} {2}─{4}\n {2}\/ {9}40%\n {2}\/var\/log {2}91%/,
    );
    expect(session.stdout).not.toMatch(/\*\*|\|---|## /);
  });
});
