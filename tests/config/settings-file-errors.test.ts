// Mistakes in a real opsbot.yaml, as `opsbot config check` reports them: the right line, in plain words, and
// every problem at once.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cliEnvironment, runCliProcess } from '../cli/cli-process.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'opsbot-settings-errors-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

async function check(yaml: string[]) {
  const file = join(dir, 'opsbot.yaml');
  writeFileSync(file, `${yaml.join('\n')}\n`);
  return runCliProcess(
    ['config', 'check'],
    cliEnvironment({
      OPSBOT_CONFIG: file,
      OPSBOT_DATA_DIR: join(dir, 'data'),
      OPSBOT_STORE_URL: `sqlite://${join(dir, 'data', 'opsbot.sqlite')}`,
    }),
  );
}

describe('a bad indent', () => {
  it('points at the over-indented line, not the one above it, and says what is wrong without parser jargon', async () => {
    const result = await check(['limits:', '  max_steps: 5', '    model_timeout: 30s']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('has 1 problem');
    expect(result.stderr).toContain(
      '- line 3, column 5: "model_timeout" is indented 4 spaces, more than line 2 ("max_steps: 5") at 2 spaces. ' +
        '"max_steps" already has a value, so nothing can be nested under it.',
    );
    expect(result.stderr).not.toMatch(/compact mappings|Implicit keys/);
  });

  it('says which lines disagree when a key is out of line with the keys above it', async () => {
    const result = await check([
      'permissions:',
      '  roles:',
      '    admin:',
      '      tools: ["*"]',
      '     approve: ["*"]',
    ]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      '- line 5, column 6: "approve" is indented 5 spaces, but line 4 ("tools: ["*"]") is indented 6 spaces. ' +
        'Keys in the same block must line up',
    );
    expect(result.stderr).not.toContain('All mapping items must start at the same column');
  });
});

describe('programs missing from tools.allowed_executables', () => {
  it('are all reported, each with the file and its line', async () => {
    const result = await check([
      'tools:',
      '  allowed_executables: [/bin/echo]',
      '  commands:',
      '    list_root:',
      '      description: List the root directory. Use when asked. Do not use otherwise.',
      '      argv: [ls, /]',
      '    host_name:',
      '      description: Print the host name. Use when asked. Do not use otherwise.',
      '      argv: [cat, /etc/hostname]',
      '    greet:',
      '      description: Print a greeting. Use when testing. Do not use otherwise.',
      '      argv: [echo, hello]',
    ]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`${join(dir, 'opsbot.yaml')} has 2 problems:`);
    expect(result.stderr).toMatch(
      /- tools\.commands\.list_root\.argv\[0\] \(line 6\): \S*\/ls is not in allowed_executables/,
    );
    expect(result.stderr).toMatch(
      /- tools\.commands\.host_name\.argv\[0\] \(line 9\): \S*\/cat is not in allowed_executables/,
    );
  });
});
