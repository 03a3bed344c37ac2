#!/usr/bin/env node
// `npm run build` (and `prepare`, so `npm install` runs it): bundles opsbot into dist/ with esbuild, so `npm start`
// and `opsbot` load a few files instead of compiling hundreds of TypeScript and package modules at every start.
// Packages that read files of their own at run time (BullMQ's Lua scripts, better-sqlite3's native module) or that
// load only when configured (the chat SDKs, Redis, metrics) stay outside the bundle.
import { cpSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';
import { ROOT, SOURCE_DIRS } from './program.js';

const EXTERNAL = [
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

const dist = join(ROOT, 'dist');
// Built beside dist/ and swapped in, so a process starting meanwhile never sees half a bundle.
const next = join(ROOT, `dist.${process.pid}`);
const builtAt = Date.now();
rmSync(next, { recursive: true, force: true });
mkdirSync(next, { recursive: true });
try {
  await build({
    absWorkingDir: ROOT,
    entryPoints: { main: 'bot/main.ts', cli: 'bot/cli/main.ts' },
    outdir: next,
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
  });
  for (const [from, to] of ASSETS) cpSync(join(ROOT, from), join(next, to), { recursive: true });
  writeFileSync(join(next, 'build.json'), `${JSON.stringify({ builtAt, sources: SOURCE_DIRS }, null, 2)}\n`);
  rmSync(dist, { recursive: true, force: true });
  renameSync(next, dist);
} catch (error) {
  rmSync(next, { recursive: true, force: true });
  process.stderr.write(`opsbot build failed: ${error instanceof Error ? error.message : error}\n`);
  // At `npm install` (prepare passes --if-possible) a failed build must not fail the install: without a bundle,
  // npm start and opsbot run the sources through tsx, only slower to start.
  if (process.argv.includes('--if-possible')) {
    process.stderr.write(
      'opsbot will run from its TypeScript sources (slower start-up) until `npm run build` works.\n',
    );
    process.exit(0);
  }
  process.exit(1);
}
