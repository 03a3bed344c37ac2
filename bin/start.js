#!/usr/bin/env node
// `npm start`: the server, from the bundle in dist/ (bin/program.js).
import { flushCompileCache } from 'node:module';
import { loadProgram } from './program.js';

const { program, description } = await loadProgram('main');
// Written now, not at exit: a server often ends by a signal, or not at all.
if (await program.runServer(process.env, process.argv.slice(2), { program: description }))
  flushCompileCache();
