#!/usr/bin/env node
// `npm run build` (and `prepare`, so `npm install` runs it): bundles opsbot into dist/ with esbuild (bin/bundle.js),
// so `npm start` and `opsbot` load a few files instead of compiling hundreds of TypeScript and package modules.
import { buildBundle } from './bundle.js';

try {
  const started = performance.now();
  await buildBundle();
  process.stdout.write(`opsbot: built dist/ in ${((performance.now() - started) / 1000).toFixed(1)} s\n`);
} catch (error) {
  process.stderr.write(`opsbot build failed: ${error instanceof Error ? error.message : error}\n`);
  // At `npm install` (prepare passes --if-possible) a failed build must not fail the install: the first
  // `npm start` or `opsbot` builds again, and says why it cannot start if that fails too.
  if (process.argv.includes('--if-possible')) {
    process.stderr.write('npm start and opsbot will try the build again when they start.\n');
    process.exit(0);
  }
  process.exit(1);
}
