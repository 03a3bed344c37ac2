// How `npm start` and `opsbot` load the bundle: through V8's code cache when one made for that very file is found,
// and as plain CommonJS otherwise. Each load runs in a fresh node process, as a start does, since a process keeps
// what it compiled once and would hide whether the cache was used.
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
// @ts-expect-error: a plain JavaScript module of the bin/ folder, without types.
import { asciiComments } from '../../bin/bundle-finish.js';

const LOADER = new URL('../../bin/bundle-loader.js', import.meta.url).href;
const FINISH = new URL('../../bin/bundle-finish.js', import.meta.url).href;

/**
 * A small CommonJS bundle: a function whose stack names its file, and an ES module imported through the loader's
 * import(), as tools/load-custom-tools.ts imports a tool folder's modules.
 */
const BUNDLE = `"use strict";
function where() { return new Error('here').stack.split('\\n')[1].trim(); }
module.exports = {
  answer: 42,
  where,
  gzipName: () => globalThis[Symbol.for('opsbot.import')]('node:zlib').then((zlib) => typeof zlib.gzipSync),
  importFile: (url) => globalThis[Symbol.for('opsbot.import')](url),
};
`;

interface Loaded {
  cache: string;
  answer: number;
  where: string;
  gzipName: string;
  saved?: boolean;
}

let dir: string | undefined;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

function bundleDir(): string {
  dir = mkdtempSync(join(tmpdir(), 'opsbot-loader-'));
  writeFileSync(join(dir, 'main.cjs'), BUNDLE);
  return dir;
}

/**
 * Loads `file` in a fresh node process (run with `nodeFlags`) and reports what it got; `save` then writes that kind
 * of cache.
 */
function load(file: string, save?: 'run' | 'load', options = '{}', nodeFlags: string[] = []): Loaded {
  const script = `import { loadBundle } from ${JSON.stringify(LOADER)};
const bundle = loadBundle(${JSON.stringify(file)}, ${options});
const report = { cache: bundle.cache, answer: bundle.exports.answer, where: bundle.exports.where(),
  gzipName: await bundle.exports.gzipName() };
${save ? `report.saved = bundle.saveCache(${JSON.stringify(save)});` : ''}
console.log(JSON.stringify(report));`;
  const child = spawnSync(process.execPath, [...nodeFlags, '--input-type=module', '-e', script], {
    encoding: 'utf8',
  });
  expect(child.stderr).toBe('');
  expect(child.status).toBe(0);
  return JSON.parse(child.stdout) as Loaded;
}

describe('loadBundle', () => {
  it('runs the file as CommonJS without a cache, then from the run cache it wrote', () => {
    const file = join(bundleDir(), 'main.cjs');
    const first = load(file, 'run');
    expect(first).toMatchObject({ cache: 'none', answer: 42, gzipName: 'function', saved: true });
    expect(first.where).toContain(`${file}:2:`);
    expect(readFileSync(`${file}.run-cache`, 'latin1').split('\n')[0]).toContain(JSON.stringify(file));

    const second = load(file);
    expect(second).toMatchObject({ cache: 'run', answer: 42, gzipName: 'function', where: first.where });
  });

  it('takes the load cache the build wrote until a run cache exists, and prefers the run cache', () => {
    const file = join(bundleDir(), 'main.cjs');
    expect(load(file, 'load').saved).toBe(true);
    expect(load(file).cache).toBe('load');
    load(file, 'run');
    expect(load(file).cache).toBe('run');
  });

  it('does not use a cache made for the same file in another place: stack traces name the file as it is', () => {
    const from = bundleDir();
    load(join(from, 'main.cjs'), 'run');
    const moved = join(from, 'moved');
    mkdirSync(moved);
    cpSync(join(from, 'main.cjs'), join(moved, 'main.cjs'), { preserveTimestamps: true });
    cpSync(join(from, 'main.cjs.run-cache'), join(moved, 'main.cjs.run-cache'));

    const loaded = load(join(moved, 'main.cjs'));
    expect(loaded.cache).toBe('none');
    expect(loaded.where).toContain(join(moved, 'main.cjs'));
  });

  it('does not use a cache once the file has changed, even to a text of the same length', () => {
    const file = join(bundleDir(), 'main.cjs');
    load(file, 'run');
    writeFileSync(file, BUNDLE.replace('answer: 42', 'answer: 43'));
    const later = new Date(Date.now() + 5_000);
    utimesSync(file, later, later);
    expect(load(file)).toMatchObject({ cache: 'none', answer: 43 });
  });

  it('compiles as usual when V8 refuses the cache (made with other flags, or another node), and writes it anew', () => {
    const file = join(bundleDir(), 'main.cjs');
    load(file, 'run', '{}', ['--no-opt']);
    expect(load(file, 'run')).toMatchObject({ cache: 'rejected', answer: 42, saved: true });
    expect(load(file).cache).toBe('run');
  });

  it('does not use a cache whose bytes were damaged since, on which V8 would crash, and falls back to the next', () => {
    const file = join(bundleDir(), 'main.cjs');
    load(file, 'load');
    load(file, 'run');
    const cache = readFileSync(`${file}.run-cache`);
    const middle = cache.indexOf(0x0a) + Math.floor((cache.length - cache.indexOf(0x0a)) / 2);
    for (let at = middle; at < middle + 64; at++) cache[at] = (cache[at] ?? 0) ^ 0xff;
    writeFileSync(`${file}.run-cache`, cache);
    expect(load(file, 'run')).toMatchObject({ cache: 'load', answer: 42, saved: true });
    expect(load(file).cache).toBe('run');
  });

  it('reads and writes no cache when told not to', () => {
    const file = join(bundleDir(), 'main.cjs');
    load(file, 'run');
    expect(load(file, undefined, '{ useCache: false }')).toMatchObject({ cache: 'none', answer: 42 });
  });

  it('answers false, and leaves nothing behind, when the cache cannot be written', () => {
    const folder = bundleDir();
    const file = join(folder, 'main.cjs');
    // A folder where the cache file should be: the rename over it fails.
    mkdirSync(`${file}.run-cache`);
    const loaded = load(file, 'run');
    expect(loaded).toMatchObject({ cache: 'none', answer: 42, saved: false });
    expect(spawnSync('ls', [folder], { encoding: 'utf8' }).stdout.trim().split('\n').sort()).toEqual([
      'main.cjs',
      'main.cjs.run-cache',
    ]);
  });
});

describe("the bundle's import()", () => {
  it("imports a user's TypeScript module, as a tool folder holds, registering tsx for it", () => {
    const folder = bundleDir();
    writeFileSync(join(folder, 'package.json'), '{ "type": "module" }\n');
    writeFileSync(
      join(folder, 'depth.ts'),
      'const depth: number = 3;\nexport const summary = "depth " + depth;\n',
    );
    const url = pathToFileURL(join(folder, 'depth.ts')).href;
    const script = `import { loadBundle } from ${JSON.stringify(LOADER)};
const bundle = loadBundle(${JSON.stringify(join(folder, 'main.cjs'))});
console.log((await bundle.exports.importFile(${JSON.stringify(url)})).summary);`;
    const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
    expect(child.stderr).toBe('');
    expect(child.stdout.trim()).toBe('depth 3');
  });
});

describe('the build steps after esbuild', () => {
  it('leaves a bundle file all ASCII, every character in a comment kept at its length in code units', () => {
    const folder = bundleDir();
    const file = join(folder, 'main.cjs');
    writeFileSync(file, `// a dash — and a wave 👋\n${BUNDLE}`);
    asciiComments(file);
    expect(readFileSync(file, 'latin1')).toBe(`// a dash ? and a wave ??\n${BUNDLE}`);
    expect(load(file)).toMatchObject({ cache: 'none', answer: 42 });
  });

  it('writes a load cache by loading the file in a process of its own', () => {
    const file = join(bundleDir(), 'main.cjs');
    const script = `import { saveLoadCache } from ${JSON.stringify(FINISH)};
console.log(saveLoadCache(${JSON.stringify(file)}));`;
    const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
    expect(child.stdout.trim()).toBe('true');
    expect(load(file).cache).toBe('load');
  });

  it('warns and answers false when the file cannot be loaded, so a build still finishes', () => {
    const file = join(bundleDir(), 'main.cjs');
    writeFileSync(file, 'throw new Error("broken bundle");\n');
    const script = `import { saveLoadCache } from ${JSON.stringify(FINISH)};
console.log(saveLoadCache(${JSON.stringify(file)}));`;
    const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
    expect(child.stdout.trim()).toBe('false');
    expect(child.stderr).toContain(`no code cache for ${file}`);
    expect(child.stderr).toContain('broken bundle');
  });
});
