#!/usr/bin/env node
// Entry point for the `opsbot` command, in this one process: the bundle from `npm run build` when it is fresh,
// otherwise the TypeScript sources through tsx.
import { loadProgram } from './program.js';

const cli = await loadProgram('cli');
process.exitCode = await cli.runCli(process.argv.slice(2), cli.processIo());
