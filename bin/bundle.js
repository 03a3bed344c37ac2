// The program's bundle in dist/: built by esbuild, and stamped with the size and modification time of every file it
// was built from (its sources, the packages bundled in, the build's settings), so that a start can tell whether it
// still matches them (bin/program.js).
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { bundleOptions, copyAssets, ROOT } from './bundle-options.js';

/** The program's entry points, by the name of their file in dist/. */
export const ENTRIES = { main: 'bot/run-server.ts', cli: 'bot/cli/main.ts' };
/** Files that shape the bundle without being in it: a change to one of them calls for a new build too. */
const BUILD_FILES = ['package.json', 'tsconfig.json', 'bin/bundle-options.js'];
const STAMP_FILE = 'build.json';

/**
 * Builds dist/ anew and returns when it was built. Built beside dist/ and swapped in, so that a process starting
 * meanwhile finds the old bundle or the new one, not half of one.
 */
export async function buildBundle() {
  const dist = join(ROOT, 'dist');
  const next = join(ROOT, `dist.${process.pid}`);
  const startedAt = Date.now();
  rmSync(next, { recursive: true, force: true });
  mkdirSync(next, { recursive: true });
  try {
    const { build } = await import('esbuild');
    const { metafile } = await build(bundleOptions(ENTRIES, next));
    copyAssets(next);
    const files = stampFiles(ROOT, [...BUILD_FILES, ...Object.keys(metafile.inputs)], startedAt);
    const builtAt = new Date(startedAt).toISOString();
    writeFileSync(join(next, STAMP_FILE), `${JSON.stringify({ builtAt, files }, null, 1)}\n`);
    swapIn(next, dist);
    return builtAt;
  } finally {
    rmSync(next, { recursive: true, force: true });
  }
}

/**
 * Whether `root`'s dist/ holds a bundle built from the files as they are now: `{ fresh: true, builtAt }`, or
 * `{ fresh: false, why }` saying what differs, in words for the person starting it.
 */
export function bundleStatus(root = ROOT) {
  let stamp;
  try {
    stamp = JSON.parse(readFileSync(join(root, 'dist', STAMP_FILE), 'utf8'));
  } catch {
    return { fresh: false, why: 'dist/ holds no bundle yet' };
  }
  const complete = Object.keys(ENTRIES).every((entry) => existsSync(join(root, 'dist', `${entry}.js`)));
  if (typeof stamp?.files !== 'object' || !complete) {
    return { fresh: false, why: 'dist/ holds a bundle of an older kind' };
  }
  for (const [file, was] of Object.entries(stamp.files)) {
    const now = stampOf(join(root, file), Number.POSITIVE_INFINITY);
    if (now !== was) {
      const what = now === undefined ? 'has been removed' : 'has changed';
      return {
        fresh: false,
        why: `${file} ${what} since the bundle in dist/ was built (${builtTime(stamp.builtAt)})`,
      };
    }
  }
  return { fresh: true, builtAt: stamp.builtAt };
}

/** A build's time as the start-up log and messages give it: `2026-12-01 21:50 UTC`. */
export function builtTime(builtAt) {
  return typeof builtAt === 'string' ? `${builtAt.slice(0, 16).replace('T', ' ')} UTC` : 'at an unknown time';
}

/**
 * The stamp of each of `files` (relative to `root`) for build.json. A file modified after the build started may
 * not be in the bundle as it is now, so its stamp never matches.
 */
export function stampFiles(root, files, startedAt) {
  const stamped = {};
  for (const file of files) {
    const stamp = stampOf(join(root, file), startedAt);
    // esbuild's virtual inputs (a module disabled by a package's "browser" field) have no file.
    if (stamp !== undefined) stamped[file] = stamp;
  }
  return stamped;
}

function stampOf(path, notAfter) {
  try {
    const { size, mtimeMs } = statSync(path);
    return mtimeMs >= notAfter ? 'modified during the build' : `${size} bytes, modified ${mtimeMs}`;
  } catch {
    return undefined;
  }
}

function swapIn(next, dist) {
  const old = `${dist}.old.${process.pid}`;
  try {
    renameSync(dist, old);
  } catch (error) {
    if (error.code !== 'ENOENT') throw error;
  }
  try {
    renameSync(next, dist);
  } catch (error) {
    // Two starts found dist/ stale at once and both built: the other one's bundle, of the same files, stays.
    if (error.code !== 'ENOTEMPTY' && error.code !== 'EEXIST') throw error;
  }
  rmSync(old, { recursive: true, force: true });
}
