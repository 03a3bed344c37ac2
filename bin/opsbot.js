#!/usr/bin/env node
// Entry point for the `opsbot` command, in this one process: the bundle from `npm run build` when it is fresh,
// otherwise the TypeScript sources through tsx.
import { loadProgram } from './program.js';

const { program, started } = await loadProgram('cli');
process.exitCode = await program.runCli(process.argv.slice(2), program.processIo());
started();
