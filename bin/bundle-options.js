// How opsbot is bundled with esbuild: shared by `npm run build` (bin/build.js) and the kernel bench, which
// measures its runners as they ship (bench/runner-bundle.ts).
import { cpSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './program.js';

/**
 * Packages that read files of their own at run time (BullMQ's Lua scripts, better-sqlite3's native module) or that
 * load only when configured (the chat SDKs, Redis, metrics) stay outside the bundle.
 */
export const EXTERNAL = [
  'better-sqlite3',
  'bullmq',
  'ioredis',
  '@keyv/redis',
  'discord.js',
  '@slack/bolt',
  'prom-client',
  'pino',
  'pino-pretty',
];

/** Files the program reads beside its own code, at the same place relative to the bundle as to their module. */
const ASSETS = [
  ['agent/prompts', 'prompts'],
  ['bot/playground/public', 'public'],
];

/** esbuild's options for bundling `entryPoints` into `outdir`. */
export function bundleOptions(entryPoints, outdir) {
  return {
    absWorkingDir: ROOT,
    entryPoints,
    outdir,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    outExtension: { '.js': '.mjs' },
    external: EXTERNAL,
    sourcemap: 'linked',
    // Bundled CommonJS packages call require(); ES modules have none of their own.
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
