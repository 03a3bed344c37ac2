// Loads opsbot's program: the bundle in dist/ when it is newer than every source file, otherwise the TypeScript
// sources through tsx in this same process (a checkout without a build, or sources edited since).
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { loadBundle } from './bundle-loader.js';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
/** Where the program's sources live; a file changed here after the build makes the bundle stale. */
export const SOURCE_DIRS = ['agent', 'bot', 'tools', 'scheduled'];

/** The program's entry points, by the name of their bundle file. */
export const ENTRIES = { main: 'bot/run-server.ts', cli: 'bot/cli/main.ts' };

/**
 * Loads `main` (which exports runServer) or `cli` (runCli and processIo) as `program`. The caller calls `started()`
 * once the program is up: a bundle that started without its run cache then writes it (bin/bundle-loader.js).
 * OPSBOT_CODE_CACHE=off loads the bundle without any cache and writes none.
 */
export async function loadProgram(entry) {
  if (bundleIsFresh(ROOT, process.env, entry)) {
    const file = join(ROOT, 'dist', `${entry}.cjs`);
    const useCache = process.env.OPSBOT_CODE_CACHE !== 'off';
    const bundle = loadBundle(file, { useCache });
    return {
      program: bundle.exports,
      started: () => {
        if (useCache && bundle.cache !== 'run') bundle.saveCache('run');
      },
    };
  }
  const { register } = await import('tsx/esm/api');
  register();
  return { program: await import(pathToFileURL(join(ROOT, ENTRIES[entry])).href), started: () => {} };
}

/**
 * Whether `root`'s bundle holds `entry` and is newer than every source file; OPSBOT_BUNDLE=off always runs the
 * sources. A dist/ from an older build may lack the entry's file (it held ES modules then).
 */
export function bundleIsFresh(root, env, entry) {
  if (env.OPSBOT_BUNDLE === 'off') return false;
  const stamp = join(root, 'dist', 'build.json');
  if (!existsSync(stamp) || !existsSync(join(root, 'dist', `${entry}.cjs`))) return false;
  let builtAt;
  try {
    builtAt = JSON.parse(readFileSync(stamp, 'utf8')).builtAt;
  } catch {
    return false;
  }
  return (
    typeof builtAt === 'number' &&
    SOURCE_DIRS.every((dir) => !existsSync(join(root, dir)) || !changedSince(join(root, dir), builtAt))
  );
}

function changedSince(dir, at) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (changedSince(path, at)) return true;
    } else if (statSync(path).mtimeMs > at) return true;
  }
  return false;
}
