// Loads one of the bundle's CommonJS files through V8's code cache, so a start does not parse and compile 2 MB of
// JavaScript again. Node 20 has no compile cache of its own for this (module.enableCompileCache came in Node 22).
//
// Two caches sit beside each bundle file, both made by this node binary with its flags (V8 refuses, and we then
// compile as usual, a cache made by another version or with other flags):
// - `<file>.load-cache`, written by `npm run build` right after loading the file: the modules' top-level code;
// - `<file>.run-cache`, written once by the program itself after its first start (when the folder is writable):
//   it also holds every function that start compiled, so the next starts compile almost nothing.
// V8 checks a cache against the source's length only, a cached script keeps the file name it was compiled under
// (stack traces would name the old place), and a release build of V8 does not check the cache's bytes: a damaged
// cache crashes the process (SIGSEGV) at every start. So each cache begins with a line naming the file's path, size
// and modification time and the SHA-256 of the cache's bytes, and a cache made for another file, another place or
// another build of it, or damaged since, is not used.
import { createHash } from 'node:crypto';
import { readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire, Module } from 'node:module';
import { dirname } from 'node:path';
import { Script } from 'node:vm';

/**
 * A script compiled here has no import() of its own on Node 20 (that needs --experimental-vm-modules, and does not
 * survive a code cache), so the bundle has none: esbuild turns the program's import() into require(). Where the
 * program must import an ES module of the user's (a tool folder's), it borrows this one under this symbol
 * (tools/load-custom-tools.ts). It imports TypeScript too, as the sources do: tsx is registered with the first
 * .ts or .mts file, so a start without one never loads it.
 */
const IMPORT = Symbol.for('opsbot.import');
let typescript;

async function importForBundle(specifier) {
  if (/\.m?ts$/.test(specifier)) {
    typescript ??= import('tsx/esm/api').then(({ register }) => register());
    await typescript;
  }
  return import(specifier);
}

/** The cache files beside `file`, the run cache first: the one a start prefers. */
export function cacheFiles(file) {
  return { run: `${file}.run-cache`, load: `${file}.load-cache` };
}

/**
 * Runs the CommonJS file `file` as `require` would, compiled from its cache when one is accepted (with `useCache`
 * false, without looking for one). Returns its exports, which cache it used (`run`, `load`, `none`, or `rejected`
 * when V8 refused the one found), and `saveCache(kind)`, which writes that kind of cache from everything compiled
 * so far.
 */
export function loadBundle(file, { useCache = true } = {}) {
  // The build leaves the file all ASCII (bin/build.js), and Latin-1 reads it without decoding.
  const source = readFileSync(file, 'latin1');
  const stamp = fileStamp(file);
  const found = useCache ? readCache(file, stamp) : undefined;
  const script = new Script(Module.wrap(source), { filename: file, cachedData: found?.data });
  globalThis[IMPORT] ??= importForBundle;
  const module = { exports: {} };
  script.runInThisContext()(module.exports, createRequire(file), module, file, dirname(file));
  const used = found === undefined ? 'none' : script.cachedDataRejected ? 'rejected' : found.kind;
  return {
    exports: module.exports,
    cache: used,
    /** Writes `<file>.<kind>-cache`; false when it could not (a read-only install runs on without it). */
    saveCache(kind) {
      const target = cacheFiles(file)[kind];
      // Written beside the target and renamed, so a process starting meanwhile reads a whole cache or none.
      const partial = `${target}.${process.pid}`;
      try {
        const data = script.createCachedData();
        const header = `${JSON.stringify({ ...stamp, sha256: sha256(data) })}\n`;
        writeFileSync(partial, Buffer.concat([Buffer.from(header), data]));
        renameSync(partial, target);
        return true;
      } catch {
        rmSync(partial, { force: true });
        return false;
      }
    },
  };
}

/** What a cache's first line says of the file it was made from. */
function fileStamp(file) {
  const { size, mtimeMs } = statSync(file);
  return { file, size, mtimeMs };
}

function sha256(bytes) {
  return createHash('sha256').update(bytes).digest('hex');
}

function readCache(file, stamp) {
  const files = cacheFiles(file);
  for (const kind of ['run', 'load']) {
    let bytes;
    try {
      bytes = readFileSync(files[kind]);
    } catch {
      continue; // Not there (yet): try the next kind, then compile without.
    }
    const data = bytes.subarray(bytes.indexOf(0x0a) + 1);
    const header = parseHeader(bytes.subarray(0, bytes.length - data.length));
    const matches =
      header?.file === stamp.file && header.size === stamp.size && header.mtimeMs === stamp.mtimeMs;
    if (matches && header.sha256 === sha256(data)) return { kind, data };
  }
  return undefined;
}

function parseHeader(line) {
  try {
    return JSON.parse(line.toString('latin1'));
  } catch {
    return undefined;
  }
}
