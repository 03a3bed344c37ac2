// The steps after esbuild that make a bundle file quick to load (bin/bundle-loader.js): ASCII only, so it is read
// without decoding, and a code cache made by loading it once.
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';

const LOADER = new URL('./bundle-loader.js', import.meta.url).href;

/**
 * Rewrites the non-ASCII characters left in `file` as `?`, so the whole file is ASCII and bin/bundle-loader.js reads
 * it as Latin-1, a byte per character, without decoding UTF-8 (in a fresh process, 2.4 MB took 39 ms as UTF-8
 * with a few non-ASCII characters, and 18 ms as Latin-1).
 * esbuild escapes every non-ASCII character in code (its `charset` is ASCII), so those left are in comments. A
 * character stays one or two code units, as it was, so the source map's columns still hold.
 */
export function asciiComments(file) {
  const text = readFileSync(file, 'utf8');
  writeFileSync(
    file,
    text.replace(/[^\0-\x7f]/gu, (character) => '?'.repeat(character.length)),
    'latin1',
  );
}

/**
 * Loads `file` in a node process of its own, as a start would, and writes its load cache (bin/bundle-loader.js).
 * Without one the program only starts slower, so a failure is a warning; returns whether the cache was written.
 */
export function saveLoadCache(file) {
  const script = `import { loadBundle } from ${JSON.stringify(LOADER)};
process.exit(loadBundle(${JSON.stringify(file)}).saveCache('load') ? 0 : 1);`;
  const saved = spawnSync(process.execPath, ['--input-type=module', '-e', script], { stdio: 'pipe' });
  if (saved.status === 0) return true;
  const why = saved.stderr?.toString().trim() || `exit ${saved.status}`;
  process.stderr.write(`opsbot build: no code cache for ${file} (${why}); starts compile it instead\n`);
  return false;
}
