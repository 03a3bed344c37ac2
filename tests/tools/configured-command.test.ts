// Configured commands from settings: zod schemas built from typed parameters, start-up checks, the shipped examples.
import { symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { toolParametersSchema } from '../../agent/tool.js';
import { CommandSettingsSchema } from '../../tools/tool-settings-schema.js';
import { commandTool } from './helpers/command-settings.js';
import { makeTempDir, removeTempDirs } from './helpers/temp-dir.js';
import { callTool, dataOf } from './helpers/tool-context.js';

afterAll(removeTempDirs);

const echo = { allowed: ['/usr/bin/echo'] };

/** The examples shipped in opsbot.yaml and docs/tools.md. */
const serviceStatus = {
  description:
    'Shows whether a service is running, since when, and its latest log lines. Use this when a service misbehaves. Do not use it to restart anything.',
  argv: ['systemctl', 'status', '{service}'],
  risk: 'read',
  parameters: { service: { description: 'The service to check.', enum: ['api', 'worker'] } },
};
const restartService = {
  description:
    'Restarts a service; requests in progress on it fail. Use this when a service is stuck. Do not use it to check status.',
  argv: ['systemctl', 'restart', '{service}'],
  risk: 'danger',
  timeout: '60s',
  parameters: { service: { description: 'The service to restart.', enum: ['api', 'worker'] } },
};

describe('configured command schemas', () => {
  it('builds enum, pattern, integer, boolean, default and optional parameters into a zod schema', async () => {
    const tool = await commandTool(
      'typed_echo',
      {
        description: 'Echoes typed values, for testing the schema builder.',
        argv: ['/usr/bin/echo', '{env}', '{name}', '{count}', '{ratio}', '{verbose}', '{extra}'],
        parameters: {
          env: { description: 'Environment', enum: ['staging', 'production'] },
          name: { description: 'A name', pattern: '[a-z][a-z0-9-]*' },
          count: { type: 'integer', description: 'A count', default: 10, required: false },
          ratio: { type: 'number', description: 'A ratio', required: false },
          verbose: { type: 'boolean', description: 'Verbose', default: false },
          extra: { description: 'Optional extra', required: false },
        },
      },
      echo,
    );
    const schema = toolParametersSchema(tool.input);
    expect(schema.required).toEqual(['env', 'name']);
    expect(schema.additionalProperties).toBe(false);
    const properties = schema.properties as Record<string, Record<string, unknown>>;
    expect(properties.env).toMatchObject({ enum: ['staging', 'production'], description: 'Environment' });
    expect(properties.count).toMatchObject({ type: 'integer', default: 10 });
    expect(properties.timeout_ms).toMatchObject({ type: 'integer', maximum: 30_000 });

    expect(() => tool.input.parse({ env: 'dev', name: 'api' })).toThrow();
    // The pattern must match the whole value.
    expect(() => tool.input.parse({ env: 'staging', name: 'api; rm -rf /' })).toThrow(
      /must match the pattern/,
    );
    expect(() => tool.input.parse({ env: 'staging', name: 'api', count: 1.5 })).toThrow();
    expect(() => tool.input.parse({ env: 'staging', name: 'api', unknown: 1 })).toThrow();

    const result = await callTool(tool, { env: 'staging', name: 'api-2', ratio: 0.5 });
    expect(dataOf(result).stdout).toBe('staging api-2 10 0.5 false\n');
    expect(result.summary).toMatch(
      /^`\/usr\/bin\/echo staging api-2 10 0\.5 false` exited with code 0 in \d+ ms/,
    );
  });

  it('carries risk, timeout and approval TTL, and writes a description with all three parts', async () => {
    const tool = await commandTool(
      'restart_service',
      { ...restartService, approval_ttl: '5m' },
      {
        allowed: ['/usr/bin/systemctl', '/bin/systemctl', '/usr/bin/echo'],
        pathVariable: '/usr/bin',
      },
    ).catch(async () =>
      // Machines without systemctl: same settings, the program named by a stand-in path on the allow-list.
      commandTool(
        'restart_service',
        { ...restartService, argv: ['/usr/bin/echo', 'restart', '{service}'], approval_ttl: '5m' },
        echo,
      ),
    );
    expect(tool.risk).toBe('danger');
    expect(tool.timeoutMs).toBe(60_000);
    expect(tool.approvalTtlMs).toBe(300_000);
    expect(tool.description).toContain('Restarts a service');
    expect(tool.description).toMatch(/Runs: \S*(systemctl|echo) restart \{service\}/);
    expect(tool.description).toContain('Use this');
    expect(tool.description).toContain('Do not use');
    expect(() => tool.input.parse({ service: 'db' })).toThrow();
    expect(tool.input.parse({ service: 'worker' })).toEqual({ service: 'worker' });
  });

  it('carries the two-person rule to its tool: approvals 2 when set, 1 by default', async () => {
    const settings = { ...restartService, argv: ['/usr/bin/echo', 'restart', '{service}'] };
    expect((await commandTool('restart_service', { ...settings, approvals: 2 }, echo)).approvals).toBe(2);
    expect((await commandTool('restart_service', settings, echo)).approvals).toBe(1);
  });

  it('describes a call as the exact argv it runs, and carries its one-line impact', async () => {
    const tool = await commandTool(
      'restart_service',
      {
        ...restartService,
        argv: ['/usr/bin/echo', 'restart', '{service}', '--reason', '{reason}'],
        impact: '  restarts the api; about 20 s of 502s ',
        parameters: { ...restartService.parameters, reason: { description: 'Why', required: false } },
      },
      echo,
    );
    expect(tool.impact).toBe('restarts the api; about 20 s of 502s');
    expect(tool.describeCall?.({ service: 'api', reason: 'stuck since 9:00' })).toBe(
      '/usr/bin/echo restart api --reason "stuck since 9:00"',
    );
    // An optional parameter left out is left out of the argv, as execute leaves it out.
    expect(tool.describeCall?.({ service: 'worker' })).toBe('/usr/bin/echo restart worker --reason');
    const withoutImpact = await commandTool(
      'restart_plain',
      { ...restartService, argv: ['/usr/bin/echo', '{service}'] },
      echo,
    );
    expect(withoutImpact).not.toHaveProperty('impact');
    for (const impact of ['', 'one\ntwo', 'x'.repeat(201)])
      expect(CommandSettingsSchema.safeParse({ ...restartService, impact }).success).toBe(false);
  });

  it('carries grant patterns to its tool, and refuses one that names no parameter or a value it would refuse', async () => {
    const settings = { ...restartService, argv: ['/usr/bin/echo', 'restart', '{service}'] };
    const tool = await commandTool(
      'restart_service',
      { ...settings, grant_patterns: { app: { service: ['api', 'worker'] } } },
      echo,
    );
    expect(tool.grantPatterns).toEqual({ app: { service: ['api', 'worker'] } });
    expect((await commandTool('restart_service', settings, echo)).grantPatterns).toBeUndefined();
    await expect(
      commandTool('restart_service', { ...settings, grant_patterns: { app: { unit: ['a', 'b'] } } }, echo),
    ).rejects.toThrow(/grant_patterns\.app\.unit: unit is not a declared parameter/);
    await expect(
      commandTool(
        'restart_service',
        { ...settings, grant_patterns: { app: { service: ['api', 'db'] } } },
        echo,
      ),
    ).rejects.toThrow(/grant_patterns\.app\.service: "db"/);
  });

  it('runs the shipped service_status example end to end, with systemctl standing in as echo', async () => {
    const bin = await makeTempDir();
    await symlink('/usr/bin/echo', join(bin, 'systemctl'));
    const tool = await commandTool('service_status', serviceStatus, {
      allowed: ['/usr/bin/echo'],
      pathVariable: bin,
    });
    const result = await callTool(tool, { service: 'api' });
    expect(result.ok).toBe(true);
    expect(dataOf(result).stdout).toBe('status api\n');
    expect(dataOf(result).argv).toEqual(['/usr/bin/echo', 'status', 'api']);
  });
});

describe('configured command start-up checks', () => {
  const base = { description: 'Echoes a value, for testing start-up checks.' };

  it('refuses a placeholder inside a larger argument', async () => {
    await expect(
      commandTool(
        'bad',
        { ...base, argv: ['/usr/bin/echo', '--unit={unit}'], parameters: { unit: { description: 'Unit' } } },
        echo,
      ),
    ).rejects.toThrow(
      /tools\.commands\.bad\.argv\[1\]: "--unit=\{unit\}" puts \{unit\} inside a larger argument/,
    );
  });

  it('refuses unknown placeholders, unused parameters and a parameter as the program', async () => {
    await expect(commandTool('bad', { ...base, argv: ['/usr/bin/echo', '{nope}'] }, echo)).rejects.toThrow(
      /\{nope\} is not a declared parameter/,
    );
    await expect(
      commandTool(
        'bad',
        { ...base, argv: ['/usr/bin/echo'], parameters: { unit: { description: 'Unit' } } },
        echo,
      ),
    ).rejects.toThrow(/parameters\.unit is not used in argv/);
    await expect(
      commandTool(
        'bad',
        { ...base, argv: ['{program}'], parameters: { program: { description: 'Program' } } },
        echo,
      ),
    ).rejects.toThrow(/the program cannot be a parameter/);
  });

  it('refuses a catastrophic pattern, a default that breaks its own rules, and a missing working directory', async () => {
    const one = (parameter: object) => ({
      ...base,
      argv: ['/usr/bin/echo', '{value}'],
      parameters: { value: { description: 'Value', ...parameter } },
    });
    await expect(commandTool('bad', one({ pattern: '(a+)+' }), echo)).rejects.toThrow(
      /could take exponential time/,
    );
    await expect(commandTool('bad', one({ enum: ['a'], default: 'b' }), echo)).rejects.toThrow(
      /parameters\.value\.default/,
    );
    await expect(commandTool('bad', one({ default: '-rf' }), echo)).rejects.toThrow(/default/);
    await expect(
      commandTool('bad', { ...base, argv: ['/usr/bin/echo'], cwd: '/nonexistent/dir' }, echo),
    ).rejects.toThrow(/tools\.commands\.bad\.cwd/);
  });

  it('keeps literal braces that are not placeholders', async () => {
    const tool = await commandTool('literal', { ...base, argv: ['/usr/bin/echo', '{}', '{{.Names}}'] }, echo);
    expect(dataOf(await callTool(tool, {})).stdout).toBe('{} {{.Names}}\n');
  });

  it('keeps a tool whose allow-listed program is not installed here, refusing each call', async () => {
    const tool = await commandTool(
      'missing',
      { ...base, argv: ['/opt/opsbot-test/nothing'] },
      {
        allowed: ['/opt/opsbot-test/nothing'],
      },
    );
    const result = await callTool(tool, {});
    expect(result.ok).toBe(false);
    expect(result.summary).toContain('/opt/opsbot-test/nothing does not exist');
    await expect(
      commandTool('missing', { ...base, argv: ['/opt/opsbot-test/nothing'] }, echo),
    ).rejects.toThrow(/tools\.commands\.missing\.argv\[0\]/);
  });

  it('runs in the configured working directory', async () => {
    const dir = await makeTempDir();
    const tool = await commandTool(
      'where',
      { ...base, argv: ['/usr/bin/pwd'], cwd: dir },
      { allowed: ['/usr/bin/pwd'] },
    );
    expect(String(dataOf(await callTool(tool, {})).stdout).trim()).toBe(dir);
  });
});
