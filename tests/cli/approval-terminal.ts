// The terminal with approvals to decide: a fake model, an opsbot.yaml with an operator (Olive), an admin (Bob), a
// viewer (Vera) and a danger command, and `opsbot …` run in-process against them. Shared by the approval CLI tests.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect } from 'vitest';
import { type FakeOpenAIServer, startFakeOpenAIServer, toolCalls } from '../fakes/openai-server.js';
import { runCliInProcess } from './cli-process.js';

export interface ApprovalTerminal {
  readonly fake: FakeOpenAIServer;
  cli(argv: string[], input?: string): Promise<{ code: number; out: string }>;
  /** Olive asks for a restart of the api; it waits for an approver. */
  waitingRestart(): Promise<{ asked: { code: number; out: string }; approvalId: string }>;
}

/**
 * Sets up a fresh terminal before each test of the calling file, and clears it after. `moreCommands`: more
 * configured commands, as YAML entries indented under `tools.commands` (four spaces), beside restart_service.
 */
export function useApprovalTerminal(options: { moreCommands?: string } = {}): ApprovalTerminal {
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
      ].join('\n') + (options.moreCommands ?? ''),
    );
  });
  afterEach(async () => {
    await fake.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const cli = (argv: string[], input = '') =>
    runCliInProcess(
      argv,
      {
        OPSBOT_CONFIG: join(dir, 'opsbot.yaml'),
        OPSBOT_DATA_DIR: join(dir, 'data'),
        OPSBOT_STORE_URL: `sqlite://${join(dir, 'data', 'opsbot.sqlite')}`,
        OPENAI_BASE_URL: fake.baseURL,
        OPENAI_MODEL: 'fake-model',
      },
      input,
    );

  async function waitingRestart() {
    fake.reply(toolCalls([{ name: 'restart_service', arguments: { service: 'api' } }]));
    const asked = await cli(['run', 'restart the api', '--as', 'olive']);
    expect(asked.code).toBe(3);
    const approvalId = /opsbot approve (apv_[\w-]+)/.exec(asked.out)?.[1];
    if (!approvalId) throw new Error(`no approval id in:\n${asked.out}`);
    return { asked, approvalId };
  }
  return {
    get fake() {
      return fake;
    },
    cli,
    waitingRestart,
  };
}
