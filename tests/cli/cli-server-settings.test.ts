// The CLI reads the settings the server beside it reads: a server started with --config/OPSBOT_CONFIG leaves a
// marker in its data folder; a CLI command with no file chosen reads that file (and says so), and one told to read
// another file reads it and says that it differs from the server's.
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Serving, serve } from '../../bot/serve.js';
import { cliEnvironment, runCliProcess } from './cli-process.js';

let dir: string;
let serving: Serving | undefined;

const patrolSettings = (name: string) =>
  [
    'patrols:',
    `  ${name}:`,
    "    schedule: '*/5 * * * *'",
    '    channel: playground:ops',
    '    checks:',
    "      - { id: disk, tool: disk_usage, args: { paths: ['/'] } }",
    '',
  ].join('\n');

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'opsbot-cli-server-settings-'));
  mkdirSync(join(dir, 'elsewhere'));
  writeFileSync(join(dir, 'server.yaml'), patrolSettings('nightly-disk'));
  writeFileSync(join(dir, 'other.yaml'), patrolSettings('other-disk'));
});
afterEach(async () => {
  await serving?.stop();
  serving = undefined;
  rmSync(dir, { recursive: true, force: true });
});

const dataEnv = () => ({
  OPSBOT_DATA_DIR: join(dir, 'data'),
  OPSBOT_STORE_URL: `sqlite://${join(dir, 'data', 'opsbot.sqlite')}`,
});

async function startServer() {
  serving = await serve({
    env: {
      ...dataEnv(),
      PORT: '0',
      HOST: '127.0.0.1',
      OPSBOT_PLAYGROUND: 'off',
      OPSBOT_CONFIG: join(dir, 'server.yaml'),
      LOG_LEVEL: 'silent',
    },
    argv: [],
  });
}

describe('a CLI command beside a running server', () => {
  it("reads the server's settings file when none is chosen, and says so", async () => {
    await startServer();
    expect(existsSync(join(dir, 'data', 'server-settings.json'))).toBe(true);
    const result = await runCliProcess(['patrol', 'list'], cliEnvironment(dataEnv()));
    expect(result.stdout).toContain('nightly-disk');
    expect(result.stderr).toContain(
      `reading the settings of the server running here (pid ${process.pid}): ${join(dir, 'server.yaml')}`,
    );
  });

  it('reads a file it is told to, and says that the server reads another', async () => {
    await startServer();
    const result = await runCliProcess(
      ['patrol', 'list'],
      cliEnvironment({ ...dataEnv(), OPSBOT_CONFIG: join(dir, 'other.yaml') }),
    );
    expect(result.stdout).toContain('other-disk');
    expect(result.stderr).toContain(
      `but the server running here (pid ${process.pid}) reads ${join(dir, 'server.yaml')}`,
    );
  });

  it('says nothing when no server runs, and the marker is gone after a clean stop', async () => {
    await startServer();
    await serving?.stop();
    serving = undefined;
    expect(existsSync(join(dir, 'data', 'server-settings.json'))).toBe(false);
    const result = await runCliProcess(
      ['patrol', 'list'],
      cliEnvironment({ ...dataEnv(), OPSBOT_CONFIG: join(dir, 'other.yaml') }),
    );
    expect(result.stdout).toContain('other-disk');
    expect(result.stderr).not.toContain('server running here');
  });
});
