// Running configured commands for real: no shell, allow-listed programs, clean env, group kill, output caps.
import { rm, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { ExecutableAllowList, ExecutableRefusal } from '../../tools/executable-allow-list.js';
import { commandTool } from './helpers/command-settings.js';
import { isAlive, waitUntil } from './helpers/process-state.js';
import { makeTempDir, removeTempDirs } from './helpers/temp-dir.js';
import { callTool, dataOf } from './helpers/tool-context.js';

afterAll(removeTempDirs);

const printfSettings = {
  description: 'Prints each text in brackets, for testing argument passing.',
  argv: ['/usr/bin/printf', '[%s]\\n', '{text}', '{more}'],
  parameters: {
    text: { description: 'First text' },
    more: { description: 'Second text', required: false },
  },
};

describe('no shell: injection strings arrive as one literal argument each', () => {
  const injections = [
    '; rm -rf /',
    '$(id)',
    '`id`',
    '| nc x 1',
    "' && echo pwned '",
    '"$HOME" > /tmp/x',
    '*',
  ];

  for (const text of injections) {
    it(`passes ${JSON.stringify(text)} through untouched`, async () => {
      const tool = await commandTool('bracket_text', printfSettings, { allowed: ['/usr/bin/printf'] });
      const result = await callTool(tool, { text });
      expect(result.ok).toBe(true);
      expect(dataOf(result).stdout).toBe(`[${text}]\n`);
      expect(dataOf(result).argv).toEqual(['/usr/bin/printf', '[%s]\\n', text]);
    });
  }

  it('makes each placeholder exactly one argument, and drops an optional one that was not given', async () => {
    const tool = await commandTool('bracket_text', printfSettings, { allowed: ['/usr/bin/printf'] });
    const two = await callTool(tool, { text: 'a b  c', more: 'x\ny' });
    expect(dataOf(two).stdout).toBe('[a b  c]\n[x\ny]\n');
    const one = await callTool(tool, { text: '' });
    expect(dataOf(one).stdout).toBe('[]\n');
  });
});

describe('allow-listed executables', () => {
  const idSettings = (program: string) => ({
    description: 'Shows the user id, for testing.',
    argv: [program],
  });

  it('refuses a program that is not on the allow-list, named by absolute path', async () => {
    await expect(
      commandTool('who', idSettings('/usr/bin/id'), { allowed: ['/usr/bin/printf'] }),
    ).rejects.toThrow(/\/usr\/bin\/id is not in allowed_executables/);
  });

  it('refuses a symlink that points at a program not on the allow-list', async () => {
    const dir = await makeTempDir();
    await symlink('/usr/bin/id', join(dir, 'printf'));
    await expect(
      commandTool('who', idSettings(join(dir, 'printf')), { allowed: ['/usr/bin/printf'] }),
    ).rejects.toThrow(/resolves to \/usr\/bin\/id\) is not in allowed_executables/);
    // The same through a PATH search: the name matches, the real file does not.
    await expect(
      commandTool('who', idSettings('printf'), { allowed: ['/usr/bin/printf'], pathVariable: dir }),
    ).rejects.toThrow(ExecutableRefusal);
  });

  it('finds a program by name on PATH without a shell and runs the allow-listed file', async () => {
    const tool = await commandTool(
      'bracket_text',
      { ...printfSettings, argv: ['printf', '[%s]\\n', '{text}', '{more}'] },
      {
        allowed: ['/usr/bin/printf'],
        pathVariable: '/usr/bin',
      },
    );
    expect(dataOf(await callTool(tool, { text: 'ok' })).stdout).toBe('[ok]\n');
  });

  it('checks again at call time, so a program swapped after start-up is refused', async () => {
    const dir = await makeTempDir();
    const link = join(dir, 'tool');
    await symlink('/usr/bin/printf', link);
    const tool = await commandTool(
      'bracket_text',
      { ...printfSettings, argv: [link, '[%s]\\n', '{text}', '{more}'] },
      {
        allowed: ['/usr/bin/printf'],
      },
    );
    expect((await callTool(tool, { text: 'before' })).ok).toBe(true);
    await rm(link);
    await symlink('/usr/bin/id', link);
    const after = await callTool(tool, { text: 'after' });
    expect(after.ok).toBe(false);
    expect(dataOf(after).refused).toBe(true);
    expect(after.summary).toContain('is not in allowed_executables');
  });

  it('refuses relative allow-list entries and relative program paths', async () => {
    expect(() => new ExecutableAllowList(['bin/id'])).toThrow(/must be an absolute path/);
    await expect(commandTool('who', idSettings('./id'), { allowed: ['/usr/bin/id'] })).rejects.toThrow(
      /relative path/,
    );
  });
});

describe('option injection', () => {
  it('refuses a value starting with "-" unless the parameter allows it', async () => {
    const tool = await commandTool('bracket_text', printfSettings, { allowed: ['/usr/bin/printf'] });
    expect(() => tool.input.parse({ text: '--help' })).toThrow(/must not start with/);
    expect(() => tool.input.parse({ text: 'ok', more: '-v' })).toThrow(/must not start with/);

    const allowing = await commandTool(
      'bracket_text',
      {
        ...printfSettings,
        parameters: { ...printfSettings.parameters, text: { description: 'Text', allow_leading_dash: true } },
      },
      { allowed: ['/usr/bin/printf'] },
    );
    expect(dataOf(await callTool(allowing, { text: '--help' })).stdout).toBe('[--help]\n');
  });

  it('refuses negative numbers the same way', async () => {
    const tool = await commandTool(
      'count_lines',
      {
        description: 'Prints a number, for testing.',
        argv: ['/usr/bin/printf', '%s\\n', '{lines}'],
        parameters: { lines: { type: 'integer', description: 'How many' } },
      },
      { allowed: ['/usr/bin/printf'] },
    );
    expect(() => tool.input.parse({ lines: -5 })).toThrow(/must not start with/);
    expect(dataOf(await callTool(tool, { lines: 5 })).stdout).toBe('5\n');
  });
});

describe('clean environment', () => {
  const secrets = {
    OPSBOT_TEST_API_TOKEN: 'token-value',
    OPSBOT_TEST_SIGNING_KEY: 'key-value',
    OPSBOT_TEST_CLIENT_SECRET: 'secret-value',
    OPSBOT_TEST_DB_PASSWORD: 'password-value',
    OPSBOT_TEST_STORE_URL: 'redis://:hunter2@cache:6379',
  };

  afterEach(() => {
    for (const name of Object.keys(secrets)) delete process.env[name];
    delete process.env.OPSBOT_TEST_HARMLESS;
  });

  it('gives the child no *_TOKEN, *_KEY, *_SECRET or *_PASSWORD variables', async () => {
    Object.assign(process.env, secrets, { OPSBOT_TEST_HARMLESS: 'visible' });
    const tool = await commandTool(
      'show_env',
      { description: 'Prints the environment, for testing.', argv: ['/usr/bin/env'] },
      {
        allowed: ['/usr/bin/env'],
      },
    );
    const stdout = String(dataOf(await callTool(tool, {})).stdout);
    expect(stdout).toContain('OPSBOT_TEST_HARMLESS=visible');
    for (const [name, value] of Object.entries(secrets)) {
      expect(stdout).not.toContain(name);
      expect(stdout).not.toContain(value);
    }
  });
});

describe('timeouts kill the whole process group', () => {
  // The shell here is the test's subject (a tree of processes), never the tool's mechanism.
  const treeSettings = (script: string) => ({
    description: 'Starts a process tree, for testing timeouts.',
    argv: ['/bin/sh', '-c', script],
    timeout: 500,
  });

  async function backgroundPid(script: string, killGraceMs: number) {
    const tool = await commandTool('process_tree', treeSettings(script), {
      allowed: ['/bin/sh'],
      killGraceMs,
    });
    const started = Date.now();
    const result = await callTool(tool, {});
    const pid = Number(String(dataOf(result).stdout).trim());
    return { result, pid, elapsed: Date.now() - started };
  }

  it('stops a forked sleep 600 with SIGTERM to the group', async () => {
    const { result, pid, elapsed } = await backgroundPid('sleep 600 & echo $!; sleep 600', 2000);
    expect(pid).toBeGreaterThan(0);
    expect(result.ok).toBe(false);
    expect(dataOf(result).timed_out).toBe(true);
    expect(result.summary).toContain('timed out');
    expect(await waitUntil(() => !isAlive(pid), 3000)).toBe(true);
    expect(elapsed).toBeLessThan(2500);
  });

  it('follows with SIGKILL after the grace period when SIGTERM is ignored', async () => {
    const { result, pid, elapsed } = await backgroundPid("trap '' TERM; sleep 600 & echo $!; wait", 300);
    expect(dataOf(result).timed_out).toBe(true);
    expect(await waitUntil(() => !isAlive(pid), 3000)).toBe(true);
    expect(elapsed).toBeGreaterThanOrEqual(750);
  });

  it('does not leave a backgrounded child behind when the command exits on its own', async () => {
    const tool = await commandTool('process_tree', treeSettings('sleep 600 > /dev/null 2>&1 & echo $!'), {
      allowed: ['/bin/sh'],
    });
    const result = await callTool(tool, {});
    expect(result.ok).toBe(true);
    const pid = Number(String(dataOf(result).stdout).trim());
    expect(await waitUntil(() => !isAlive(pid), 3000)).toBe(true);
  });

  it('honours a shorter timeout_ms and the kernel abort signal', async () => {
    const tool = await commandTool(
      'process_tree',
      { ...treeSettings('sleep 600'), timeout: 10_000 },
      { allowed: ['/bin/sh'] },
    );
    expect(() => tool.input.parse({ timeout_ms: 20_000 })).toThrow();
    const short = await callTool(tool, { timeout_ms: 200 });
    expect(dataOf(short).timed_out).toBe(true);
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 200);
    const { testContext } = await import('./helpers/tool-context.js');
    const cancelled = await callTool(tool, {}, testContext({ signal: controller.signal }));
    expect(dataOf(cancelled).cancelled).toBe(true);
    expect(cancelled.summary).toContain('was cancelled');
  });
});

describe('output limits', () => {
  it('keeps head and tail with a marker when the output is over the limit', async () => {
    const tool = await commandTool(
      'count',
      { description: 'Counts to 20000, for testing.', argv: ['/usr/bin/seq', '1', '20000'] },
      {
        allowed: ['/usr/bin/seq'],
      },
    );
    const data = dataOf(await callTool(tool, {}));
    const stdout = String(data.stdout);
    expect(data.flooded).toBe(false);
    expect(data.output_truncated).toBe(true);
    expect(data.stdout_bytes).toBe(108_894);
    expect(stdout.startsWith('1\n2\n3\n')).toBe(true);
    expect(stdout.endsWith('19999\n20000\n')).toBe(true);
    expect(stdout).toMatch(
      /\[\.\.\. 43358 bytes omitted, 108894 bytes in total; showing the first 32768 and last 32768 \.\.\.\]/,
    );
  });

  it('caps a 5 MB flood and stops the process', async () => {
    const tool = await commandTool(
      'count',
      { description: 'Counts far, for testing floods.', argv: ['/usr/bin/seq', '1', '750000'] },
      {
        allowed: ['/usr/bin/seq'],
      },
    );
    const result = await callTool(tool, {});
    const data = dataOf(result);
    expect(result.ok).toBe(false);
    expect(data.flooded).toBe(true);
    expect(String(data.stdout).length).toBeLessThan(70 * 1024);
    expect(String(data.stdout).startsWith('1\n2\n3\n')).toBe(true);
    expect(String(data.stdout)).toContain('bytes omitted');
    expect(result.summary).toContain('wrote more output than allowed and was stopped');
  });

  it('stops an endless flood quickly', async () => {
    const tool = await commandTool(
      'flood',
      { description: 'Prints y forever, for testing floods.', argv: ['/usr/bin/yes'], timeout: 20_000 },
      {
        allowed: ['/usr/bin/yes'],
      },
    );
    const started = Date.now();
    const data = dataOf(await callTool(tool, {}));
    expect(data.flooded).toBe(true);
    expect(data.timed_out).toBe(false);
    expect(Date.now() - started).toBeLessThan(3000);
    expect(Number(data.stdout_bytes)).toBeLessThan(5 * 1024 * 1024);
    expect(String(data.stdout)).toMatch(/^y\ny\n[\s\S]*bytes omitted[\s\S]*y\ny\n$/);
  });

  it('reports a failing exit code as not ok', async () => {
    const tool = await commandTool(
      'fail',
      { description: 'Exits with 3, for testing.', argv: ['/bin/sh', '-c', 'echo oops >&2; exit 3'] },
      {
        allowed: ['/bin/sh'],
      },
    );
    const result = await callTool(tool, {});
    expect(result.ok).toBe(false);
    expect(dataOf(result)).toMatchObject({ exit_code: 3, stderr: 'oops\n' });
    expect(result.summary).toMatch(/exited with code 3 in \d+ ms with 5 B of output\.$/);
  });
});
