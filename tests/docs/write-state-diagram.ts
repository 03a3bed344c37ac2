// `npm run docs:states`: rewrites the generated part of docs/architecture.md from the run machine.
import { readFileSync, writeFileSync } from 'node:fs';
import { DIAGRAM_END, DIAGRAM_START, renderStateDiagram } from './state-diagram.js';

const path = new URL('../../docs/architecture.md', import.meta.url);
const text = readFileSync(path, 'utf8');
const start = text.indexOf(DIAGRAM_START);
const end = text.indexOf(DIAGRAM_END);
if (start === -1 || end === -1) throw new Error('docs/architecture.md has no state-diagram markers');
writeFileSync(
  path,
  `${text.slice(0, start + DIAGRAM_START.length)}\n${renderStateDiagram()}\n${text.slice(end)}`,
);
console.log('docs/architecture.md: state diagram rewritten');
