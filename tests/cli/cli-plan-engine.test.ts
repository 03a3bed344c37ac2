// `opsbot run --engine plan`: the plan printed as a checklist, its steps as they run, the answer, the exit code.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { planReply } from '../engines/plan-script.js';
import { type FakeOpenAIServer, startFakeOpenAIServer, text } from '../fakes/openai-server.js';
import { runCliInProcess } from './cli-process.js';

let fake: FakeOpenAIServer;
let dir: string;

beforeEach(async () => {
  fake = await startFakeOpenAIServer();
  dir = mkdtempSync(join(tmpdir(), 'opsbot-cli-plan-'));
  writeFileSync(
    join(dir, 'opsbot.yaml'),
    [
      'permissions:',
      '  roles:',
      '    admin: { tools: ["*"], approve: ["*"], admin: true }',
      '  identities:',
      "    'local:operator': { roles: [admin], display_name: Olive }",
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

/** `opsbot <argv>` in this process, on the test's settings, store and fake model. */
function cli(argv: string[]) {
  return runCliInProcess(argv, {
    OPSBOT_CONFIG: join(dir, 'opsbot.yaml'),
    OPSBOT_DATA_DIR: join(dir, 'data'),
    OPSBOT_STORE_URL: `sqlite://${join(dir, 'data', 'opsbot.sqlite')}`,
    LOG_LEVEL: 'error',
    OPENAI_BASE_URL: fake.baseURL,
    OPENAI_MODEL: 'fake-model',
  });
}

describe('opsbot run --engine plan', () => {
  it('prints the plan, runs its steps, prints the answer and exits 0', async () => {
    fake.reply(
      planReply([
        { id: 'stats', tool: 'system_stats', args: {}, why: 'how loaded the host is' },
        { id: 'disk', tool: 'disk_usage', args: { paths: ['/'] } },
      ]),
      text('The host is healthy: low load, and / has room.'),
    );
    const { code, out } = await cli(['run', '--engine', 'plan', 'how is this host?']);
    expect(code).toBe(0);
    expect(out).toContain('Plan (2 steps):');
    expect(out).toMatch(/⏳ 1\. system_stats running.* — how loaded the host is/);
    expect(out).toMatch(/⏳ 2\. disk_usage running/);
    expect(out).toMatch(/✓ system_stats: Load/);
    expect(out).toMatch(/✓ disk_usage: /);
    expect(out).toContain('The host is healthy: low load, and / has room.');
    expect(out).toMatch(/run run_[0-9a-f]+: finished/);
    expect(fake.requests).toHaveLength(2);
    expect(fake.requests[0]!.body.tools ?? []).toEqual([]);
  });

  it('refuses an engine it does not know, naming the ones it does', async () => {
    const { code, out } = await cli(['run', '--engine', 'magic', 'hello']);
    expect(code).toBe(2);
    expect(out).toContain('opsbot: --engine must be react, plan or command');
  });
});
