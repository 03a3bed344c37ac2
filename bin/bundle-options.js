// How opsbot is bundled with esbuild: shared by `npm run build` (bin/build.js) and the kernel bench, which
// measures its runners as they ship (bench/runner-bundle.ts).
import { cpSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './program.js';

/**
 * Packages that read files of their own at run time (BullMQ's Lua scripts) or that
 * load only when configured (the chat SDKs, Redis, metrics) stay outside the bundle.
 */
export const EXTERNAL = [
  'bullmq',
  'ioredis',
  // @keyv/redis itself is bundled: its default export is a class only in its ES build, and a CommonJS bundle that
  // required it would get its CommonJS module object instead. The Redis client it wraps stays outside.
  '@redis/client',
  'discord.js',
  '@slack/bolt',
  'prom-client',
  'pino-pretty',
];

/** Files the program reads beside its own code, at the same place relative to the bundle as to their module. */
const ASSETS = [
  ['agent/prompts', 'prompts'],
  ['bot/playground/public', 'public'],
];

/**
 * esbuild's options for bundling `entryPoints` into `outdir`: one CommonJS file per entry, which bin/bundle-loader.js
 * compiles through V8's code cache (Node 20 caches no ES module). The program's own lazy imports (the chat
 * services, the Redis store) become lazy requires inside that file.
 */
export function bundleOptions(entryPoints, outdir) {
  return {
    absWorkingDir: ROOT,
    entryPoints,
    outdir,
    bundle: true,
    format: 'cjs',
    platform: 'node',
    target: 'node22',
    outExtension: { '.js': '.cjs' },
    // Every import() becomes require(): a script compiled from V8's code cache has no import() (bundle-loader.js).
    supported: { 'dynamic-import': false },
    external: EXTERNAL,
    sourcemap: 'linked',
    // A CommonJS file has no import.meta; the modules that find files beside themselves read it from here.
    define: { 'import.meta.url': '__opsbotImportMetaUrl' },
    banner: { js: "const __opsbotImportMetaUrl = require('node:url').pathToFileURL(__filename).href;" },
    logLevel: 'warning',
  };
}

/** Copies the files the bundle reads beside itself into `outdir`. */
export function copyAssets(outdir) {
  for (const [from, to] of ASSETS) cpSync(join(ROOT, from), join(outdir, to), { recursive: true });
}
