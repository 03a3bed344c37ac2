#!/usr/bin/env node
// The `opsbot` command, from the bundle in dist/ (bin/program.js).
import { readFileSync } from 'node:fs';
import { loadProgram } from './program.js';

const { program, description } = await loadProgram('cli');
const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
process.exitCode = await program.runCli(process.argv.slice(2), program.processIo(), {
  version: `opsbot ${version} on Node ${process.versions.node}\nprogram: ${description}`,
});
