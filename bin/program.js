// Loads opsbot's program: the bundle in dist/ when it is newer than every source file, otherwise the TypeScript
// sources through tsx in this same process (a checkout without a build, or sources edited since).
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
/** Where the program's sources live; a file changed here after the build makes the bundle stale. */
export const SOURCE_DIRS = ['agent', 'bot', 'tools', 'scheduled'];

/** The program's entry points, by the name of their bundle file. */
export const ENTRIES = { main: 'bot/main.ts', cli: 'bot/cli/main.ts' };

/** Imports `main` (the server, which starts on import) or `cli` (which exports runCli). */
export async function loadProgram(entry) {
  if (bundleIsFresh(ROOT, process.env)) return import(pathToFileURL(join(ROOT, 'dist', `${entry}.mjs`)).href);
  const { register } = await import('tsx/esm/api');
  register();
  return import(pathToFileURL(join(ROOT, ENTRIES[entry])).href);
}

/** Whether `root`'s bundle is newer than every source file; OPSBOT_BUNDLE=off always runs the sources. */
export function bundleIsFresh(root, env) {
  if (env.OPSBOT_BUNDLE === 'off') return false;
  const stamp = join(root, 'dist', 'build.json');
  if (!existsSync(stamp)) return false;
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
