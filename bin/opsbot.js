#!/usr/bin/env node
// Entry point for the `opsbot` command: runs the TypeScript CLI through tsx, so no build step is needed.
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const here = dirname(fileURLToPath(import.meta.url));
const tsxLoader = require.resolve('tsx');
const cli = join(here, '..', 'bot', 'cli', 'main.ts');
const result = spawnSync(process.execPath, ['--import', tsxLoader, cli, ...process.argv.slice(2)], {
  stdio: 'inherit',
});
process.exit(result.status ?? 1);
