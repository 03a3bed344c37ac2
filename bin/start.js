#!/usr/bin/env node
// `npm start`: the server, from the bundle when it is fresh, otherwise from the TypeScript sources through tsx.
import { loadProgram } from './program.js';

const { program, started } = await loadProgram('main');
if (await program.runServer(process.env, process.argv.slice(2))) started();
