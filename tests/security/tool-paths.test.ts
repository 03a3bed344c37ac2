// Attacks on tools that take paths: traversal, absolute paths, encoded dots, NUL bytes, overlong names and
// symlinks that lead out of the log roots, against the real log_search and disk_usage on real files.
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Tool } from '../../agent/tool.js';
import { createDiskUsageTool } from '../../tools/disk-usage.js';
import { createLogSearchTool } from '../../tools/log-search.js';
import { makeTempDir, removeTempDirs } from '../tools/helpers/temp-dir.js';
import { callTool, dataOf, testContext } from '../tools/helpers/tool-context.js';

const SECRET = 'OUTSIDE-THE-ROOT-7f3a';
let base: string;
let root: string;
let outside: string;
let logSearch: Tool;

beforeAll(async () => {
  base = await makeTempDir('opsbot-security-paths-');
  root = join(base, 'logs');
  outside = join(base, 'outside');
  await mkdir(join(root, 'app'), { recursive: true });
  await mkdir(outside);
  await writeFile(join(root, 'app', 'app.log'), 'ERROR inside the root\n');
  await writeFile(join(outside, 'secret.log'), `ERROR ${SECRET}\n`);
  // A sibling directory whose name starts like the root: a prefix check would let it through.
  await mkdir(`${root}-evil`);
  await writeFile(join(`${root}-evil`, 'x.log'), `ERROR ${SECRET}\n`);
  await symlink(join(outside, 'secret.log'), join(root, 'escape.log'));
  await symlink(outside, join(root, 'app', 'linkdir'));
  await symlink('../../outside/secret.log', join(root, 'app', 'relative-escape.log'));
  await symlink('/etc', join(root, 'etc'));
  logSearch = createLogSearchTool({ roots: [root] });
});

afterAll(removeTempDirs);

/** Runs log_search as the kernel does: a schema refusal counts as refused too. */
async function search(glob: string): Promise<{ refused: boolean; text: string }> {
  const parsed = logSearch.input.safeParse({ glob, pattern: 'ERROR', max_lines: 1000 });
  if (!parsed.success) return { refused: true, text: parsed.error.message };
  const result = await logSearch.execute(testContext(), parsed.data);
  const matches = (dataOf(result).matches as { text: string }[] | undefined) ?? [];
  return { refused: matches.length === 0, text: JSON.stringify(result) };
}

describe('log_search stays inside log_roots', () => {
  const globs: [string, string][] = [
    ['../outside/secret.log', 'a relative ../'],
    ['app/../../outside/secret.log', 'a ../ after a real directory'],
    ['app/..\\..\\outside/secret.log', 'backslash ..'],
    ['%2e%2e/outside/secret.log', 'percent-encoded dots'],
    ['%2e%2e%2foutside%2fsecret.log', 'percent-encoded slashes'],
    ['%252e%252e/outside/secret.log', 'double-encoded dots'],
    ['..%c0%afoutside/secret.log', 'overlong UTF-8 slash'],
    ['app/app.log\0../../outside/secret.log', 'a NUL byte'],
    ['/etc/passwd', 'an absolute path outside the roots'],
    ['/etc/*', 'an absolute glob outside the roots'],
    ['PLACEHOLDER_OUTSIDE', 'the absolute path of the file outside'],
    ['PLACEHOLDER_EVIL', 'a sibling directory sharing the root as prefix'],
    ['escape.log', 'a symlink to a file outside'],
    ['app/relative-escape.log', 'a relative symlink that climbs out'],
    ['app/linkdir/secret.log', 'a file through a symlinked directory'],
    ['app/linkdir/*', 'a glob through a symlinked directory'],
    ['etc/passwd', 'a symlink to /etc'],
    ['**/*', 'a recursive glob that meets every escaping symlink'],
    [`${'a'.repeat(300)}.log`, 'an overlong name'],
    [`${'a/'.repeat(400)}x.log`, 'an overlong path'],
  ];

  for (const [glob, attack] of globs) {
    it(`attack: log_search with ${attack} reads nothing outside the roots`, async () => {
      const resolved = glob
        .replace('PLACEHOLDER_OUTSIDE', join(outside, 'secret.log'))
        .replace('PLACEHOLDER_EVIL', join(`${root}-evil`, 'x.log'));
      const result = await search(resolved);
      expect(result.text).not.toContain(SECRET);
      if (glob !== '**/*') expect(result.refused).toBe(true);
      expect(result.text).not.toMatch(/root:x:0:0/);
    });
  }

  it('attack: a recursive glob names each escaping symlink as refused, and still searches the root', async () => {
    const result = await callTool(logSearch, { glob: '**/*.log', pattern: 'ERROR', max_lines: 1000 });
    const matches = dataOf(result).matches as { text: string }[];
    expect(matches.map((match) => match.text)).toEqual(['ERROR inside the root']);
    const refused = (dataOf(result).refused as { path: string }[]).map((item) => item.path).sort();
    expect(refused).toEqual(
      expect.arrayContaining([join(root, 'escape.log'), join(root, 'app', 'relative-escape.log')]),
    );
    expect(JSON.stringify(result)).not.toContain(SECRET);
  });
});

describe('disk_usage takes paths but never reads them', () => {
  it('attack: disk_usage on a traversal, a NUL byte or a secret file reports only file system figures', async () => {
    const tool = createDiskUsageTool();
    expect(tool.input.safeParse({ paths: ['/tmp\0/etc/shadow'] }).success).toBe(false);
    expect(tool.input.safeParse({ paths: ['../../etc/shadow'] }).success).toBe(false);
    expect(tool.input.safeParse({ paths: [`/${'a'.repeat(2000)}`] }).success).toBe(false);
    const result = await callTool(tool, {
      paths: [join(outside, 'secret.log'), `${root}/../outside/secret.log`],
    });
    expect(JSON.stringify(result)).not.toContain(SECRET);
    const rows = dataOf(result).rows as { path: string; total_bytes: number | null }[];
    expect(rows).toHaveLength(2);
  });
});
