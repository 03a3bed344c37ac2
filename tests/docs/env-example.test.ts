// .env.example explains every variable opsbot and its runtime read, and no variable that nothing reads.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { EnvironmentSchema } from '../../bot/config/environment.js';
import { OUTSIDE_VARIABLES } from './settings-reference.js';

const text = readFileSync(new URL('../../.env.example', import.meta.url), 'utf8');
/** `NAME=…` lines, commented out or not. */
const written = [...text.matchAll(/^#? ?([A-Z][A-Z0-9_]*)=/gm)].map((match) => match[1] ?? '');
const schemaNames = Object.keys(EnvironmentSchema.shape);
/** A lower-case name (https_proxy) is read as an alias of its upper-case one, which is the one explained. */
const known = [...schemaNames, ...OUTSIDE_VARIABLES.map(({ name }) => name)].filter(
  (name) => name === name.toUpperCase() || !schemaNames.includes(name.toUpperCase()),
);

describe('.env.example', () => {
  it('shows every variable of the environment schema and those Node and undici read', () => {
    expect(known.filter((name) => !written.includes(name))).toEqual([]);
  });

  it('shows no variable that nothing reads (add it to bot/config/environment.ts, or remove it)', () => {
    expect([...new Set(written)].filter((name) => !known.includes(name))).toEqual([]);
  });

  it('names the Node versions opsbot runs on', () => {
    expect(text).toContain('Node 22.13 or newer');
  });
});
