// A CLI command beside a running server is the normal set-up: the server holds the data directory's instance id,
// and the CLI, taking an id of its own, says nothing about it (a second server sharing the folder still warns).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { claimInstanceId } from '../../bot/instance-id.js';
import { cliEnvironment, runCliProcess } from './cli-process.js';

let dir: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'opsbot-cli-beside-'));
  mkdirSync(join(dir, 'data'));
  // The "server": this test process, alive on this host, holding the folder's lock.
  writeFileSync(
    join(dir, 'data', 'instance.lock'),
    JSON.stringify({ pid: process.pid, host: hostname(), id: 'inst_0123456789abcdef' }),
  );
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('a CLI command while the server runs', () => {
  it('prints no instance.lock warning, even at LOG_LEVEL=info', async () => {
    const result = await runCliProcess(
      ['run', 'disk_usage paths=/'],
      cliEnvironment({
        OPSBOT_DATA_DIR: join(dir, 'data'),
        OPSBOT_STORE_URL: `sqlite://${join(dir, 'data', 'opsbot.sqlite')}`,
        LOG_LEVEL: 'info',
      }),
    );
    expect(result.code).toBe(0);
    expect(`${result.stdout}${result.stderr}`).not.toContain('instance.lock');
  });

  it('still tells a second process that the folder is held, for the server to warn with', () => {
    const claimed = claimInstanceId(join(dir, 'data'));
    expect(claimed.persistent).toBe(false);
    expect(claimed.note).toContain(`process ${process.pid} on ${hostname()} holds`);
  });
});
