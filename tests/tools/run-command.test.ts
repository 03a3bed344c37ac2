// Running configured commands for real: no shell, allow-listed programs, option injection, clean env.
import { rm, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { ExecutableAllowList, ExecutableRefusal } from '../../tools/executable-allow-list.js';
import { commandTool } from './helpers/command-settings.js';
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

  it('gives the child no *_TOKEN, *_KEY, *_SECRET or *_PASSWORD variables, only what env: lists', async () => {
    Object.assign(process.env, secrets, { OPSBOT_TEST_HARMLESS: 'visible' });
    const tool = await commandTool(
      'show_env',
      {
        description: 'Prints the environment, for testing.',
        argv: ['/usr/bin/env'],
        env: ['OPSBOT_TEST_HARMLESS'],
      },
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
