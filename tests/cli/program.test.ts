// The one program `npm start` and `opsbot` run: the bundle in dist/, with source maps, which says what it is, names
// the TypeScript file and line in a stack trace, and is built again, saying so, when a source changed since.
import { spawn } from 'node:child_process';
import {
  appendFileSync,
  cpSync,
  existsSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { cliEnvironment, collect, runCliProcess } from './cli-process.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const PROGRAM_LINE =
  /^program: bundle dist\/cli\.js, built \d{4}-\d\d-\d\d \d\d:\d\d UTC(?<now> at this start)?; source maps on; compile cache in \S+$/m;

let copy: string | undefined;
afterEach(() => {
  if (copy) rmSync(copy, { recursive: true, force: true });
  copy = undefined;
});

function runNode(argv: string[], cwd = ROOT) {
  const child = spawn(process.execPath, argv, { cwd, env: cliEnvironment({}), stdio: 'pipe' });
  child.stdin.end();
  return collect(child);
}

describe('the program opsbot runs', () => {
  it('says which it is: the bundle, when it was built, with source maps and where its compile cache is', async () => {
    const result = await runCliProcess(['--version'], cliEnvironment({}));
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^opsbot \d+\.\d+\.\d+ on Node \d+\.\d+\.\d+$/m);
    expect(result.stdout).toMatch(PROGRAM_LINE);
  });

  it("names the TypeScript file and line in a thrown error's stack, not the bundle's", async () => {
    // runCli with no streams throws a TypeError where it wraps them for the terminal, in bot/cli/cli-io.ts.
    const script = `const { loadProgram } = await import(${JSON.stringify(join(ROOT, 'bin/program.js'))});
const { program } = await loadProgram('cli');
await program.runCli(['--help'], null).catch((error) => console.log(error.stack));`;
    const result = await runNode(['--input-type=module', '-e', script]);
    expect(result.stderr).toBe('');
    const line = readFileSync(join(ROOT, 'bot/cli/cli-io.ts'), 'utf8')
      .split('\n')
      .findIndex((text) => text.includes('new TerminalStream(streams.stdout)'));
    const frame = result.stdout.split('\n').find((text) => text.trim().startsWith('at '));
    expect(frame).toContain(`${join(ROOT, 'bot/cli/cli-io.ts')}:${line + 1}:`);
  });

  it('builds a missing bundle, and again after a source changed, saying so; a failed build runs nothing', async () => {
    copy = mkdtempSync(join(tmpdir(), 'opsbot-checkout-'));
    for (const part of ['agent', 'bot', 'tools', 'scheduled', 'bin', 'package.json', 'tsconfig.json'])
      cpSync(join(ROOT, part), join(copy, part), { recursive: true });
    symlinkSync(join(ROOT, 'node_modules'), join(copy, 'node_modules'));
    const opsbot = join(copy, 'bin/opsbot.js');

    const first = await runNode([opsbot, '--version'], copy);
    expect(first.stderr).toMatch(
      /^opsbot: dist\/ holds no bundle yet: building it \(npm run build\)\nopsbot: built dist\/ in [\d.]+ s\n$/,
    );
    expect(PROGRAM_LINE.exec(first.stdout)?.groups?.now).toBe(' at this start');

    const second = await runNode([opsbot, '--version'], copy);
    expect(second.stderr).toBe('');
    expect(PROGRAM_LINE.exec(second.stdout)?.groups?.now).toBeUndefined();

    appendFileSync(join(copy, 'agent/errors.ts'), '// edited\n');
    const edited = await runNode([opsbot, '--version'], copy);
    expect(edited.stderr).toMatch(
      /^opsbot: agent\/errors\.ts has changed since the bundle in dist\/ was built \(.+\): building it/,
    );
    expect(PROGRAM_LINE.exec(edited.stdout)?.groups?.now).toBe(' at this start');

    writeFileSync(join(copy, 'agent/errors.ts'), 'export const broken = ;\n');
    const broken = await runNode([opsbot, '--version'], copy);
    expect(broken.code).toBe(1);
    expect(broken.stdout).toBe('');
    expect(broken.stderr).toContain('agent/errors.ts has changed');
    expect(broken.stderr).toContain('opsbot: the build failed, so opsbot cannot start');
    expect(broken.stderr).toContain('agent/errors.ts:1:');
    // The bundle built before stays, and is not run in the sources' place.
    expect(existsSync(join(copy, 'dist/cli.js'))).toBe(true);
  }, 120_000);
});
