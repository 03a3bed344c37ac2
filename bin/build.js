#!/usr/bin/env node
// `npm run build` (and `prepare`, so `npm install` runs it): bundles opsbot into dist/ with esbuild, so `npm start`
// and `opsbot` load a few files instead of compiling hundreds of TypeScript and package modules at every start.
// What stays outside the bundle and what is copied beside it: bin/bundle-options.js.
import { mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';
import { asciiComments, saveLoadCache } from './bundle-finish.js';
import { bundleOptions, copyAssets } from './bundle-options.js';
import { ENTRIES, ROOT, SOURCE_DIRS } from './program.js';

const dist = join(ROOT, 'dist');
// Built beside dist/ and swapped in, so a process starting meanwhile never sees half a bundle.
const next = join(ROOT, `dist.${process.pid}`);
const builtAt = Date.now();
rmSync(next, { recursive: true, force: true });
mkdirSync(next, { recursive: true });
try {
  await build(bundleOptions(ENTRIES, next));
  for (const entry of Object.keys(ENTRIES)) asciiComments(join(next, `${entry}.cjs`));
  copyAssets(next);
  writeFileSync(join(next, 'build.json'), `${JSON.stringify({ builtAt, sources: SOURCE_DIRS }, null, 2)}\n`);
  rmSync(dist, { recursive: true, force: true });
  renameSync(next, dist);
  // Made in place: a cache holds the path it was compiled under.
  for (const entry of Object.keys(ENTRIES)) saveLoadCache(join(dist, `${entry}.cjs`));
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
