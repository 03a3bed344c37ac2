// Path text checks and containment, the pieces log_search relies on.
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  assertCleanPathText,
  isInside,
  PathRefusal,
  realPathInside,
  resolveRoots,
} from '../../tools/safe-path.js';
import { makeTempDir, removeTempDirs } from './helpers/temp-dir.js';

afterAll(removeTempDirs);

describe('assertCleanPathText', () => {
  it('refuses traversal, encoded characters and NUL bytes, and accepts ordinary globs', () => {
    for (const text of [
      '../etc/shadow',
      'a/../../b',
      '..',
      'a\\..\\b',
      '%2e%2e/x',
      '%2E%2e%2Fx',
      '%252e%252e',
      'a%00b',
      'a\0b',
    ]) {
      expect(() => assertCleanPathText(text), text).toThrow(PathRefusal);
    }
    for (const text of [
      'app.log',
      'nginx/*.log',
      '**/*.log',
      '/var/log/syslog',
      'app..log',
      '.hidden/x.log',
    ]) {
      expect(() => assertCleanPathText(text), text).not.toThrow();
    }
  });
});

describe('isInside', () => {
  it('compares whole path segments', () => {
    expect(isInside('/var/log/app.log', '/var/log')).toBe(true);
    expect(isInside('/var/log', '/var/log')).toBe(true);
    expect(isInside('/var/log2/app.log', '/var/log')).toBe(false);
    expect(isInside('/var', '/var/log')).toBe(false);
  });
});

describe('realPathInside', () => {
  it('follows symlinks before judging, inside or out', async () => {
    const base = await makeTempDir();
    const root = join(base, 'root');
    await mkdir(root);
    await writeFile(join(root, 'real.log'), 'x');
    await writeFile(join(base, 'outside.log'), 'secret');
    await symlink(join(root, 'real.log'), join(root, 'inside-link.log'));
    await symlink(join(base, 'outside.log'), join(root, 'outside-link.log'));
    const roots = await resolveRoots([root, join(base, 'missing-root')]);
    expect(roots).toHaveLength(1);
    await expect(realPathInside(join(root, 'inside-link.log'), roots)).resolves.toBe(
      join(roots[0]!.real, 'real.log'),
    );
    await expect(realPathInside(join(root, 'outside-link.log'), roots)).rejects.toThrow(
      /outside the log roots/,
    );
  });
});
