// Loading opsbot.yaml: the shipped example, defaults, missing files, and errors that name file, key and line.
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ErrorCode } from '../../agent/errors.js';
import {
  DEFAULT_SETTINGS_PATH,
  loadSettings,
  parseSettings,
  settingsLocation,
} from '../../bot/config/load-settings.js';
import { InvalidSettingsError } from '../../bot/config/settings-problem.js';
import { SettingsSchema } from '../../bot/config/settings-schema.js';

const shippedSettings = fileURLToPath(new URL('../../opsbot.yaml', import.meta.url));

/** The InvalidSettingsError that parsing `text` throws. */
function problemsOf(text: string, source = 'opsbot.yaml'): InvalidSettingsError {
  try {
    parseSettings(text, source);
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidSettingsError);
    return error as InvalidSettingsError;
  }
  throw new Error('expected the settings to be rejected');
}

async function temporaryFile(name: string, text: string): Promise<string> {
  const directory = await mkdtemp(join(tmpdir(), 'opsbot-settings-'));
  const path = join(directory, name);
  await writeFile(path, text);
  return path;
}

describe('the shipped opsbot.yaml', () => {
  it('is valid and says what the docs promise', async () => {
    const { settings, source, path } = await loadSettings(shippedSettings);
    expect(source).toBe('file');
    expect(path).toBe(shippedSettings);
    const { permissions, tools, aliases } = settings;
    expect(permissions.default_role).toBe('viewer');
    expect(Object.keys(permissions.roles).sort()).toEqual(['admin', 'operator', 'patrol', 'viewer']);
    expect(permissions.roles.viewer?.risks).toEqual(['read']);
    expect(permissions.roles.patrol?.risks).toEqual(['read']);
    expect(permissions.roles.admin).toMatchObject({ admin: true, approve: ['*'] });
    expect(permissions.roles.operator?.admin).toBe(false);
    expect(permissions.identities['local:alice']).toEqual({ roles: ['operator'], display_name: 'Alice' });
    expect(permissions.identities['local:bob']).toEqual({ roles: ['admin'], display_name: 'Bob' });
    expect(permissions.identities['local:carol']).toEqual({ roles: ['viewer'], display_name: 'Carol' });
    // With self-approval off, a lone admin's danger call could never be approved: the demo ships two.
    expect(permissions.identities['local:dave']).toEqual({ roles: ['admin'], display_name: 'Dave' });
    expect(permissions.allow_self_approval).toBe(false);
    expect(permissions.channels['#ops']?.risks).toContain('danger');
    expect(tools.commands.service_status).toMatchObject({
      argv: ['systemctl', 'status', '{service}'],
      risk: 'read',
      parameters: { service: { enum: ['api', 'worker'] } },
    });
    expect(tools.commands.restart_service).toMatchObject({ risk: 'danger' });
    expect(tools.allowed_executables).toEqual(['/usr/bin/systemctl', '/bin/systemctl']);
    expect(tools.log_roots).toEqual(['/var/log']);
    expect(aliases).toMatchObject({ disk: 'disk_usage', stats: 'system_stats' });
  });

  it('writes out the defaults it claims to', async () => {
    const { settings } = await loadSettings(shippedSettings);
    const defaults = SettingsSchema.parse({});
    expect(settings.limits).toEqual(defaults.limits);
    expect(settings.model).toEqual(defaults.model);
    expect(settings.tools.network).toEqual(defaults.tools.network);
    expect(settings.permissions.approval_ttl).toBe(defaults.permissions.approval_ttl);
  });
});

describe('finding the file', () => {
  it('uses OPSBOT_CONFIG when set, and ./opsbot.yaml otherwise', () => {
    expect(settingsLocation({})).toEqual({ path: DEFAULT_SETTINGS_PATH, origin: 'default' });
    expect(settingsLocation({ OPSBOT_CONFIG: '' })).toEqual({
      path: DEFAULT_SETTINGS_PATH,
      origin: 'default',
    });
    expect(settingsLocation({ OPSBOT_CONFIG: '/etc/opsbot.yaml' })).toEqual({
      path: '/etc/opsbot.yaml',
      origin: 'OPSBOT_CONFIG',
    });
  });

  it('falls back to the built-in defaults when the default file is missing, and says so', async () => {
    const directory = await mkdtemp(join(tmpdir(), 'opsbot-settings-'));
    const loaded = await loadSettings(join(directory, 'opsbot.yaml'), { origin: 'default' });
    expect(loaded.source).toBe('defaults');
    expect(loaded.settings).toEqual(SettingsSchema.parse({}));
  });

  it('infers the default origin from the default path', async () => {
    // vitest runs from the repository root, where the shipped file is the default one.
    const loaded = await loadSettings(DEFAULT_SETTINGS_PATH);
    expect(loaded).toMatchObject({ source: 'file', path: shippedSettings });
  });

  it('rejects a missing file named by OPSBOT_CONFIG, naming the variable and the path', async () => {
    const directory = await mkdtemp(join(tmpdir(), 'opsbot-settings-'));
    const missing = join(directory, 'nope.yaml');
    const failure = loadSettings(missing, { origin: 'OPSBOT_CONFIG' });
    await expect(failure).rejects.toMatchObject({ code: ErrorCode.InvalidSettings, fault: 'caller' });
    await expect(failure).rejects.toThrow(/OPSBOT_CONFIG/);
    await expect(failure).rejects.toThrow(missing);
  });

  it('rejects a missing file given any other way', async () => {
    const directory = await mkdtemp(join(tmpdir(), 'opsbot-settings-'));
    await expect(loadSettings(join(directory, 'other.yaml'))).rejects.toThrow(/does not exist/);
  });

  it('names the file in validation errors', async () => {
    const path = await temporaryFile('bad.yaml', 'limits:\n  max_steps: lots\n');
    await expect(loadSettings(path)).rejects.toThrow(`${path} has 1 problem`);
  });

  it('treats an empty file, or one with only comments, as all defaults', () => {
    expect(parseSettings('', 'empty.yaml')).toEqual(SettingsSchema.parse({}));
    expect(parseSettings('# nothing yet\n', 'empty.yaml')).toEqual(SettingsSchema.parse({}));
  });
});

describe('validation errors', () => {
  it('name the file, the key path, the line, the expectation and what was found', () => {
    const error = problemsOf(
      [
        'permissions:',
        '  roles:',
        '    operator:',
        '      tools:',
        '        - service_status',
        '        - restart_*',
        '        - 42',
      ].join('\n'),
    );
    expect(error.code).toBe(ErrorCode.InvalidSettings);
    expect(error.problems).toEqual([
      { key: 'permissions.roles.operator.tools[2]', line: 7, column: 11, message: 'expected text, found 42' },
    ]);
    expect(error.message).toContain('opsbot.yaml has 1 problem');
    expect(error.message).toContain('permissions.roles.operator.tools[2] (line 7): expected text, found 42');
  });

  it('are all reported together, in file order', () => {
    const error = problemsOf(
      [
        'limits:',
        '  max_steps: 0',
        '  tool_timeout: 0s',
        'permissions:',
        '  on_denial: ignore',
        '  roles:',
        '    viewer:',
        '      risks: [reed]',
        'model:',
        '  compress_at: 2',
      ].join('\n'),
    );
    expect(error.problems.map((problem) => [problem.key, problem.line])).toEqual([
      ['limits.max_steps', 2],
      ['limits.tool_timeout', 3],
      ['permissions.on_denial', 5],
      ['permissions.roles.viewer.risks[0]', 8],
      ['model.compress_at', 10],
    ]);
    expect(error.message).toContain('has 5 problems');
    expect(error.problems[0]?.message).toBe('expected a number at least 1, found 0');
    expect(error.problems[1]?.message).toBe('expected a duration such as 30s, 15m or 24h, found "0s"');
    expect(error.problems[2]?.message).toBe('expected one of "continue", "stop", found "ignore"');
    expect(error.problems[3]?.message).toContain('found "reed" (did you mean "read"?)');
    expect(error.problems[4]?.message).toBe('expected a number at most 0.95, found 2');
  });

  it('name a model engine that does not exist, by default, per channel and for alerts', () => {
    const error = problemsOf(
      [
        'engines:',
        '  default: plann',
        '  channels:',
        "    '#incidents': command",
        'alerts:',
        '  engine: rect',
      ].join('\n'),
    );
    expect(error.problems.map((problem) => [problem.key, problem.line, problem.message])).toEqual([
      ['engines.default', 2, 'expected one of "react", "plan", found "plann" (did you mean "plan"?)'],
      ['engines.channels["#incidents"]', 4, 'expected one of "react", "plan", found "command"'],
      ['alerts.engine', 6, 'expected one of "react", "plan", found "rect" (did you mean "react"?)'],
    ]);
  });

  it('say when a required key is missing, pointing at its parent', () => {
    const error = problemsOf('permissions:\n  identities:\n    "local:dan":\n      display_name: Dan\n');
    expect(error.problems).toEqual([
      {
        key: 'permissions.identities["local:dan"].roles',
        line: 3,
        column: 5,
        message: 'missing; expected a list',
      },
    ]);
  });

  it('explain an empty value, a common slip when everything under a key is commented out', () => {
    const error = problemsOf('aliases:\n  # disk: disk_usage\n');
    expect(error.problems[0]?.message).toBe(
      'expected a mapping of keys to values, found nothing (an empty value)',
    );
  });

  it('explain a wrong kind of duration', () => {
    const error = problemsOf('limits:\n  tool_timeout: true\n');
    expect(error.problems[0]?.message).toBe(
      'expected a duration: milliseconds as a whole number, or text such as 30s, 15m or 24h, found true',
    );
  });

  it('reject a file that is not a mapping', () => {
    expect(problemsOf('- limits\n').problems[0]?.message).toBe(
      'expected a mapping of settings keys, found a list of 1',
    );
  });
});

describe('unknown keys', () => {
  it('are errors at the top level, with a suggestion for a near miss', () => {
    const error = problemsOf('bot_nmae: ops\npermisions:\n  default_role: viewer\n');
    expect(error.problems).toEqual([
      { key: 'bot_nmae', line: 1, column: 1, message: 'unknown key (did you mean "bot_name"?)' },
      { key: 'permisions', line: 2, column: 1, message: 'unknown key (did you mean "permissions"?)' },
    ]);
  });

  it('list the allowed keys when nothing is close', () => {
    const message = problemsOf('colour: blue\n').problems[0]?.message;
    expect(message).toBe(
      'unknown key; the keys allowed here are bot_name, limits, model, engines, redaction, permissions, tools, mcp, aliases, slack, discord, patrols, alerts, playground',
    );
  });

  it('are errors inside sections too, where a typo could change permissions', () => {
    const error = problemsOf('permissions:\n  roles:\n    viewer:\n      risk: [read]\n');
    expect(error.problems).toEqual([
      {
        key: 'permissions.roles.viewer.risk',
        line: 4,
        column: 7,
        message: 'unknown key (did you mean "risks"?)',
      },
    ]);
  });
});

describe('YAML syntax errors', () => {
  it('give the line and column', () => {
    const error = problemsOf('limits:\n  max_steps: [1, 2\nmodel: {}\n');
    expect(error.problems[0]).toMatchObject({ key: '', line: 3, column: 1 });
    expect(error.problems[0]?.message).toMatch(/^YAML syntax error: /);
    expect(error.message).toContain('line 3, column 1: YAML syntax error');
  });

  it('include duplicate keys', () => {
    const error = problemsOf('bot_name: a\nbot_name: b\n');
    expect(error.problems[0]).toMatchObject({ line: 2 });
    expect(error.problems[0]?.message).toContain('unique');
  });
});
