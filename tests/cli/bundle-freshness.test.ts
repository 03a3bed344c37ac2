// Which program `npm start` and `opsbot` load: the bundle from `npm run build` only while no source file is newer.
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
// @ts-expect-error: a plain JavaScript module of the bin/ folder, without types.
import { bundleIsFresh } from '../../bin/program.js';

const isFresh = bundleIsFresh as (root: string, env: NodeJS.ProcessEnv, entry: string) => boolean;
const fresh = (root: string, env: NodeJS.ProcessEnv) => isFresh(root, env, 'main');
let root: string | undefined;
afterEach(() => {
  if (root) rmSync(root, { recursive: true, force: true });
  root = undefined;
});

/** A checkout with one source file written at `sourceAt` and, if `builtAt` is given, a bundle built then. */
function checkout(sourceAt: number, builtAt?: number): string {
  root = mkdtempSync(join(tmpdir(), 'opsbot-bundle-'));
  mkdirSync(join(root, 'agent/store'), { recursive: true });
  const source = join(root, 'agent/store/store.ts');
  writeFileSync(source, 'export {};\n');
  utimesSync(source, sourceAt / 1000, sourceAt / 1000);
  if (builtAt !== undefined) {
    mkdirSync(join(root, 'dist'));
    writeFileSync(join(root, 'dist/build.json'), JSON.stringify({ builtAt }));
    writeFileSync(join(root, 'dist/main.cjs'), 'module.exports = {};\n');
  }
  return root;
}

describe('bundleIsFresh', () => {
  const t = Date.parse('2026-11-30T12:00:00Z');

  it('uses the bundle built after every source file', () => {
    expect(fresh(checkout(t, t + 1_000), {})).toBe(true);
  });

  it('runs the sources when there is no build, or a file changed since', () => {
    expect(fresh(checkout(t), {})).toBe(false);
    expect(fresh(checkout(t + 5_000, t + 1_000), {})).toBe(false);
  });

  it("runs the sources when the bundle lacks the entry's file, as a dist/ from an older build does", () => {
    const dir = checkout(t, t + 1_000);
    expect(isFresh(dir, {}, 'cli')).toBe(false);
    rmSync(join(dir, 'dist/main.cjs'));
    expect(fresh(dir, {})).toBe(false);
  });

  it('runs the sources when OPSBOT_BUNDLE=off, or the stamp is unreadable', () => {
    expect(fresh(checkout(t, t + 1_000), { OPSBOT_BUNDLE: 'off' })).toBe(false);
    const dir = checkout(t, t + 1_000);
    writeFileSync(join(dir, 'dist/build.json'), '{not json');
    expect(fresh(dir, {})).toBe(false);
  });
});
