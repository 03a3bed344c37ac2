// Attacks through configured commands: opsbot's secrets in a child's environment, and a setsid grandchild
// that outlives its command's timeout.
import { readdirSync, readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { REDACTED } from '../../agent/redaction.js';
import { ToolSettingsSchema } from '../../tools/tool-settings-schema.js';
import { commandTool } from '../tools/helpers/command-settings.js';
import { isAlive, waitUntil } from '../tools/helpers/process-state.js';
import { makeTempDir, removeTempDirs } from '../tools/helpers/temp-dir.js';
import { callTool, dataOf } from '../tools/helpers/tool-context.js';

afterAll(removeTempDirs);

/** Secrets that a deny-list of *_TOKEN/*_KEY/*_SECRET/*_PASSWORD names let through to children. */
const LEAKED_BEFORE = {
  PGPASSWORD: 'pg-secret-value',
  MYSQL_PWD: 'mysql-secret-value',
  GITHUB_PAT: 'github-pat-value',
  DOCKER_AUTH_CONFIG: '{"auths":{"registry":{"auth":"ZG9ja2VyOnNlY3JldA=="}}}',
  NPM_CONFIG__AUTH: 'npm-auth-value',
  HTPASSWD: 'admin:$apr1$secret',
  CI_JOB_JWT: 'eyJhbGciOiJSUzI1NiJ9.ci-job-jwt',
};
const BASE = { LANG: 'C.UTF-8', TZ: 'Europe/Berlin' };
const saved = new Map<string, string | undefined>();

function setEnvironment(values: Record<string, string>): void {
  for (const [name, value] of Object.entries(values)) {
    if (!saved.has(name)) saved.set(name, process.env[name]);
    process.env[name] = value;
  }
}

afterEach(() => {
  for (const [name, value] of saved) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  saved.clear();
});

/** The child's environment as /usr/bin/env printed it. */
async function childEnvironment(env: string[] = []): Promise<Map<string, string>> {
  const tool = await commandTool(
    'show_env',
    { description: 'Prints its environment, for testing.', argv: ['/usr/bin/env'], env },
    { allowed: ['/usr/bin/env'] },
  );
  const stdout = String(dataOf(await callTool(tool, {})).stdout);
  return new Map(
    stdout
      .trimEnd()
      .split('\n')
      .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
  );
}

describe('attack: secrets in opsbot environment reach a configured command', () => {
  it('attack: PGPASSWORD, MYSQL_PWD, GITHUB_PAT, DOCKER_AUTH_CONFIG, NPM_CONFIG__AUTH, HTPASSWD and CI_JOB_JWT do not reach a child', async () => {
    setEnvironment({ ...LEAKED_BEFORE, ...BASE, OPSBOT_TEST_ORDINARY: 'not listed' });
    const seen = await childEnvironment();
    for (const [name, value] of Object.entries(LEAKED_BEFORE)) {
      expect(seen.has(name), name).toBe(false);
      expect([...seen.values()].join('\n')).not.toContain(value);
    }
    expect(seen.has('OPSBOT_TEST_ORDINARY')).toBe(false);
    expect(seen.get('PATH')).toBe(process.env.PATH);
    expect(seen.get('HOME')).toBe(process.env.HOME);
    expect(seen.get('LANG')).toBe('C.UTF-8');
    expect(seen.get('TZ')).toBe('Europe/Berlin');
    const allowed = (name: string) =>
      ['PATH', 'HOME', 'LANG', 'TZ', 'USER', 'OPSBOT_CALL'].includes(name) || name.startsWith('LC_');
    expect([...seen.keys()].filter((name) => !allowed(name))).toEqual([]);
  });

  it('attack: a child sees exactly what its env: lists beyond the base names, nothing more', async () => {
    setEnvironment({ ...LEAKED_BEFORE, ...BASE, LC_TIME: 'C' });
    const seen = await childEnvironment(['PGPASSWORD', 'APP_MODE=staging', 'OPSBOT_TEST_NOT_SET']);
    const expected = ['PATH', 'HOME', 'LANG', 'TZ', 'USER', 'LC_ALL', 'LC_CTYPE', 'LC_TIME']
      .filter((name) => process.env[name] !== undefined)
      .concat(['PGPASSWORD', 'APP_MODE', 'OPSBOT_CALL']);
    expect([...seen.keys()].sort()).toEqual(expected.sort());
    // The child has the value; its output shows it masked (command-env-values.test.ts).
    expect(seen.get('PGPASSWORD')).toBe(REDACTED);
    expect(seen.get('APP_MODE')).toBe('staging');
    expect(seen.get('LC_TIME')).toBe('C');
  });

  it('attack: env: cannot forge the call mark, and a malformed entry fails at start-up', () => {
    const settings = (env: string[]) =>
      ToolSettingsSchema.safeParse({
        commands: { show_env: { description: 'Prints its environment.', argv: ['/usr/bin/env'], env } },
      });
    expect(settings(['OPSBOT_CALL=someone-else']).success).toBe(false);
    expect(settings(['NOT A NAME']).success).toBe(false);
    expect(settings(['PGPASSWORD', 'A=b=c']).success).toBe(true);
  });
});

/** Pids whose environment carries `OPSBOT_CALL=<mark>`, read here independently of the code under test. */
function processesCarrying(mark: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const environ = readFileSync(`/proc/${entry}/environ`, 'latin1').split('\0');
      if (environ.includes(`OPSBOT_CALL=${mark}`)) found.push(Number(entry));
    } catch {
      // Gone, or another user's.
    }
  }
  return found;
}

describe('attack: a setsid grandchild outlives its command', () => {
  it('attack: a double-forked setsid sleep 300 is killed at the timeout, and nothing carrying the mark remains', async () => {
    const dir = await makeTempDir();
    const script = join(dir, 'double-fork.sh');
    // The middle sh starts setsid in the background and exits at once, so the sleep belongs to init, in its
    // own session and process group; the script then outlives the timeout.
    await writeFile(
      script,
      [
        'echo "mark=$OPSBOT_CALL"',
        `sh -c 'setsid sh -c "sleep 300; :" & echo "escaped=$!"'`,
        'sleep 30',
      ].join('\n'),
    );
    const tool = await commandTool(
      'double_fork',
      {
        description: 'Double-forks a setsid sleep, for testing.',
        argv: ['/usr/bin/sh', script],
        timeout: '1s',
      },
      { allowed: ['/usr/bin/sh'], killGraceMs: 300 },
    );
    const result = await callTool(tool, {});
    const data = dataOf(result);
    expect(data.timed_out).toBe(true);
    const stdout = String(data.stdout);
    const mark = /mark=(\S+)/.exec(stdout)?.[1];
    const escaped = Number(/escaped=(\d+)/.exec(stdout)?.[1]);
    expect(mark).toBeTruthy();
    expect(escaped).toBeGreaterThan(0);
    // Gone by the time the call returns; the wait only absorbs the kernel reaping a killed process.
    expect(await waitUntil(() => !isAlive(escaped), 1_000)).toBe(true);
    expect(await waitUntil(() => processesCarrying(mark ?? '').length === 0, 1_000)).toBe(true);
  });
});
