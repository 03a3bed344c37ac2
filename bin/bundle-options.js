// How opsbot is bundled with esbuild: shared by the program's build (bin/bundle.js) and the kernel bench, which
// measures its runners as they ship (bench/runner-bundle.ts).
import { cpSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

/**
 * Packages that read files of their own at run time (BullMQ's Lua scripts) or that
 * load only when configured (the chat SDKs, Redis, metrics) stay outside the bundle.
 */
export const EXTERNAL = [
  'bullmq',
  'ioredis',
  '@redis/client',
  'discord.js',
  '@slack/bolt',
  'prom-client',
  'pino-pretty',
  // Loaded only for a custom tools folder's TypeScript (tools/load-custom-tools.ts); tsx runs esbuild's binary.
  'tsx',
  'esbuild',
];

/** Files the program reads beside its own code, at the same place relative to the bundle as to their module. */
const ASSETS = [
  ['agent/prompts', 'prompts'],
  ['bot/playground/public', 'public'],
  ['tools/custom-tool-hooks.mjs', 'custom-tool-hooks.mjs'],
];

/**
 * esbuild's options for bundling `entryPoints` into `outdir` as ES modules, one file per entry. The program's lazy
 * imports (the chat services, the Redis store, metrics) become chunks of their own, so an external package they
 * import is loaded only when they are (in one file, every external import would load at start). Chunks sit beside
 * the entries, so a module that finds its files through import.meta.url finds them wherever it landed.
 * Source maps without the sources' text: a stack trace needs only the positions, and the .ts files are there.
 */
export function bundleOptions(entryPoints, outdir) {
  return {
    absWorkingDir: ROOT,
    entryPoints,
    outdir,
    bundle: true,
    format: 'esm',
    splitting: true,
    platform: 'node',
    target: 'node22',
    external: EXTERNAL,
    sourcemap: 'linked',
    sourcesContent: false,
    metafile: true,
    // The CommonJS packages inside the bundle call require() for Node's own modules; an ES module has none.
    banner: {
      js: "import { createRequire as __opsbotCreateRequire } from 'node:module'; const require = __opsbotCreateRequire(import.meta.url);",
    },
    logLevel: 'warning',
  };
}

/** Copies the files the bundle reads beside itself into `outdir`. */
export function copyAssets(outdir) {
  for (const [from, to] of ASSETS) cpSync(join(ROOT, from), join(outdir, to), { recursive: true });
}
