// Well-formed settings that are still wrong: unknown roles, bad patterns, unmatched command placeholders.
import { describe, expect, it } from 'vitest';
import { parseSettings } from '../../bot/config/load-settings.js';
import { InvalidSettingsError, type SettingsProblem } from '../../bot/config/settings-problem.js';

function problems(text: string): SettingsProblem[] {
  try {
    parseSettings(text, 'opsbot.yaml');
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidSettingsError);
    return [...(error as InvalidSettingsError).problems];
  }
  return [];
}

const lines = (...text: string[]) => `${text.join('\n')}\n`;

describe('role references (checked by the permissions schema the policy owns)', () => {
  it('require the default role to exist', () => {
    expect(problems(lines('permissions:', '  default_role: viewr'))).toEqual([
      {
        key: 'permissions.default_role',
        line: 2,
        column: 3,
        message: 'role "viewr" is not defined under permissions.roles (defined: viewer, patrol)',
      },
    ]);
  });

  it('require every role an identity names to exist', () => {
    const found = problems(
      lines(
        'permissions:',
        '  roles:',
        '    operator: { risks: [read, write] }',
        '  identities:',
        '    "local:alice": { roles: [operater, viewer] }',
        '    "slack:U1":',
        '      roles: [viewer, root]',
      ),
    );
    expect(found).toEqual([
      {
        key: 'permissions.identities["local:alice"].roles',
        line: 5,
        column: 22,
        message: 'role "operater" is not defined under permissions.roles (defined: viewer, patrol, operator)',
      },
      {
        key: 'permissions.identities["slack:U1"].roles',
        line: 7,
        column: 7,
        message: 'role "root" is not defined under permissions.roles (defined: viewer, patrol, operator)',
      },
    ]);
  });

  it('require identity keys of a known kind', () => {
    const [problem] = problems(lines('permissions:', '  identities:', '    "slak:U1": { roles: [viewer] }'));
    expect(problem).toMatchObject({ key: 'permissions.identities["slak:U1"]', line: 3 });
    expect(problem?.message).toContain('"slak:U1" is not an identity key; use one of slack:<id>');
  });

  it('are checked even when another section has problems', () => {
    const found = problems(lines('limits:', '  max_steps: none', 'permissions:', '  default_role: nobody'));
    expect(found.map((problem) => problem.key)).toEqual(['limits.max_steps', 'permissions.default_role']);
  });
});

describe('unknown keys in sections other modules own', () => {
  it('are reported, with a suggestion, although that schema would strip them', () => {
    const found = problems(
      lines(
        'permissions:',
        '  roles:',
        '    operator:',
        '      risk: [read]',
        '  channels:',
        '    "#ops": { tool: [x] }',
      ),
    );
    expect(found).toEqual([
      {
        key: 'permissions.roles.operator.risk',
        line: 4,
        column: 7,
        message: 'unknown key (did you mean "risks"?)',
      },
      {
        key: 'permissions.channels["#ops"].tool',
        line: 6,
        column: 15,
        message: 'unknown key (did you mean "tools"?)',
      },
    ]);
  });
});

describe('aliases', () => {
  it('must start with a tool name', () => {
    const found = problems(lines('aliases:', '  disk: disk_usage paths=/', '  blank: "  "', '  odd: "=x"'));
    expect(found.map((problem) => [problem.key, problem.line])).toEqual([
      ['aliases.blank', 3],
      ['aliases.odd', 4],
    ]);
    expect(found[0]?.message).toContain('expected a tool name followed by optional arguments');
  });

  it('must be one word', () => {
    expect(problems(lines('aliases:', '  "disk now": disk_usage'))[0]).toMatchObject({
      key: 'aliases["disk now"]',
      line: 2,
    });
  });
});

describe('redaction patterns', () => {
  it('must compile, match something, and not backtrack exponentially', () => {
    const found = problems(
      lines(
        'redaction:',
        '  patterns:',
        '    - "corp-[a-z]{8}"',
        '    - "(unclosed"',
        '    - "x*"',
        '    - "(a+)+$"',
      ),
    );
    expect(found.map((problem) => [problem.key, problem.line])).toEqual([
      ['redaction.patterns[1]', 4],
      ['redaction.patterns[2]', 5],
      ['redaction.patterns[3]', 6],
    ]);
    expect(found[0]?.message).toMatch(
      /^expected a regular expression, found "\(unclosed": Invalid regular expression/,
    );
    expect(found[1]?.message).toContain('matches empty text');
    expect(found[2]?.message).toContain('exponential time');
  });
});

describe('commands', () => {
  const command = (...body: string[]) =>
    lines(
      'tools:',
      '  allowed_executables: [/usr/bin/systemctl]',
      '  commands:',
      '    restart_service:',
      '      description: Restart one service.',
      ...body.map((line) => `      ${line}`),
    );

  it('accept placeholders that match their parameters', () => {
    expect(
      problems(
        command(
          'argv: [systemctl, restart, "{service}"]',
          'parameters:',
          '  service: { description: which }',
        ),
      ),
    ).toEqual([]);
  });

  it('reject a placeholder that names no parameter, and a parameter no placeholder uses', () => {
    const found = problems(
      command('argv: [systemctl, restart, "{servce}"]', 'parameters:', '  service: { description: which }'),
    );
    expect(found).toEqual([
      {
        key: 'tools.commands.restart_service.argv[2]',
        line: 6,
        column: 34,
        message:
          'placeholder {servce} names no parameter (did you mean "service"?); declared parameters: service',
      },
      {
        key: 'tools.commands.restart_service.parameters.service',
        line: 8,
        column: 9,
        message: 'parameter "service" is declared but no argv entry uses {service}',
      },
    ]);
  });

  it('reject a placeholder as the program, and a relative program path', () => {
    const placeholder = problems(
      command('argv: ["{program}"]', 'parameters:', '  program: { description: which }'),
    );
    expect(placeholder[0]).toMatchObject({ key: 'tools.commands.restart_service.argv[0]' });
    expect(placeholder[0]?.message).toContain('the program must be fixed');
    const relative = problems(command('argv: [bin/restart]'));
    expect(relative[0]?.message).toContain('relative path "bin/restart"');
  });

  it('reject a parameter pattern that does not compile', () => {
    const found = problems(
      command(
        'argv: [systemctl, restart, "{service}"]',
        'parameters:',
        '  service: { description: which, pattern: "[" }',
      ),
    );
    expect(found[0]).toMatchObject({
      key: 'tools.commands.restart_service.parameters.service.pattern',
      line: 8,
    });
  });

  it('reject a command name the model API cannot take as a tool name', () => {
    const found = problems(
      lines(
        'tools:',
        '  commands:',
        '    "restart service":',
        '      description: Restart one service.',
        '      argv: [systemctl]',
      ),
    );
    expect(found[0]).toMatchObject({ key: 'tools.commands["restart service"]', line: 3 });
  });

  it('require absolute allowed executables', () => {
    expect(problems(lines('tools:', '  allowed_executables: [systemctl]'))[0]).toMatchObject({
      key: 'tools.allowed_executables[0]',
      message: 'expected an absolute path such as /usr/bin/systemctl, found "systemctl"',
    });
  });
});
