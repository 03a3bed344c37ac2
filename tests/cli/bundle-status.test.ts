// Whether the bundle in dist/ still matches the files it was built from: what `npm start` and `opsbot` check before
// they run it, building it again when it does not (bin/program.js).
import { appendFileSync, mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { bundleStatus, stampFiles } from '../../bin/bundle.js';

const BUILT_AT = Date.parse('2026-11-30T12:00:00Z');
const BEFORE = new Date(BUILT_AT - 60_000);
let root: string | undefined;
afterEach(() => {
  if (root) rmSync(root, { recursive: true, force: true });
  root = undefined;
});

/** A checkout with a source and a bundled package file, both written before a bundle built from them at BUILT_AT. */
function builtCheckout(startedAt = BUILT_AT): string {
  root = mkdtempSync(join(tmpdir(), 'opsbot-bundle-status-'));
  mkdirSync(join(root, 'agent'));
  mkdirSync(join(root, 'node_modules/zod'), { recursive: true });
  mkdirSync(join(root, 'dist'));
  const files = ['agent/errors.ts', 'node_modules/zod/index.js'];
  for (const file of files) {
    writeFileSync(join(root, file), 'export {};\n');
    utimesSync(join(root, file), BEFORE, BEFORE);
  }
  writeFileSync(join(root, 'dist/main.js'), 'export {};\n');
  writeFileSync(join(root, 'dist/cli.js'), 'export {};\n');
  const stamp = { builtAt: new Date(BUILT_AT).toISOString(), files: stampFiles(root, files, startedAt) };
  writeFileSync(join(root, 'dist/build.json'), JSON.stringify(stamp));
  return root;
}

describe('bundleStatus', () => {
  it('finds the bundle fresh while every file it was built from is as it was', () => {
    expect(bundleStatus(builtCheckout())).toEqual({ fresh: true, builtAt: '2026-11-30T12:00:00.000Z' });
  });

  it('names the source edited since the build, even when it is touched back to its old time', () => {
    const dir = builtCheckout();
    appendFileSync(join(dir, 'agent/errors.ts'), '// edited\n');
    utimesSync(join(dir, 'agent/errors.ts'), BEFORE, BEFORE);
    expect(bundleStatus(dir)).toEqual({
      fresh: false,
      why: 'agent/errors.ts has changed since the bundle in dist/ was built (2026-11-30 12:00 UTC)',
    });
  });

  it('counts a package in node_modules as a source: an update to it builds again', () => {
    const dir = builtCheckout();
    utimesSync(join(dir, 'node_modules/zod/index.js'), new Date(), new Date());
    expect(bundleStatus(dir)).toMatchObject({
      fresh: false,
      why: expect.stringMatching(/^node_modules\/zod/),
    });
  });

  it('finds it stale when a file it was built from is gone', () => {
    const dir = builtCheckout();
    rmSync(join(dir, 'agent/errors.ts'));
    expect(bundleStatus(dir)).toMatchObject({
      fresh: false,
      why: expect.stringMatching(/^agent\/errors.ts has been removed/),
    });
  });

  it('never trusts a file that was modified while the build ran', () => {
    expect(bundleStatus(builtCheckout(BEFORE.getTime()))).toMatchObject({ fresh: false });
  });

  it('says when there is no bundle, or one of an older kind', () => {
    const dir = builtCheckout();
    rmSync(join(dir, 'dist/cli.js'));
    expect(bundleStatus(dir)).toEqual({ fresh: false, why: 'dist/ holds a bundle of an older kind' });
    writeFileSync(join(dir, 'dist/build.json'), JSON.stringify({ builtAt: BUILT_AT }));
    expect(bundleStatus(dir)).toEqual({ fresh: false, why: 'dist/ holds a bundle of an older kind' });
    rmSync(join(dir, 'dist'), { recursive: true });
    expect(bundleStatus(dir)).toEqual({ fresh: false, why: 'dist/ holds no bundle yet' });
  });
});
