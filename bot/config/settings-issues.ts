// Turns zod's validation issues into problems a person can act on: the key, what was expected, what was found.
import type { z } from 'zod';
import { didYouMean } from '../../agent/did-you-mean.js';
import { describeValue, type SettingsPath } from './settings-problem.js';
import { knownKeys, unknownKeyMessage, type Walkable } from './settings-strictness.js';

export interface PathProblem {
  path: SettingsPath;
  message: string;
}

type Issue = z.core.$ZodIssue;

export function issuesToProblems(issues: readonly Issue[], schema: Walkable, input: unknown): PathProblem[] {
  return issues.flatMap((issue) => {
    const path = issue.path.map((part) => (typeof part === 'number' ? part : String(part)));
    if (issue.code === 'unrecognized_keys') {
      const known = knownKeys(schema, path);
      return issue.keys.map((key) => ({ path: [...path, key], message: unknownKeyMessage(key, known) }));
    }
    return [{ path, message: issueMessage(issue, valueAt(input, path)) }];
  });
}

function issueMessage(issue: Issue, found: unknown): string {
  const foundText = describeValue(found);
  switch (issue.code) {
    case 'invalid_type':
      if (found === undefined) return `missing; expected ${typeName(issue.expected)}`;
      return `expected ${typeName(issue.expected)}, found ${foundText}`;
    case 'invalid_value': {
      const options = issue.values.map((value) => JSON.stringify(value)).join(', ');
      const hint = typeof found === 'string' ? didYouMean(found, issue.values.map(String)) : '';
      return `expected one of ${options}, found ${foundText}${hint}`;
    }
    case 'too_small':
      return `expected ${bound(issue.origin, 'at least', issue.minimum, issue.inclusive)}, found ${measure(issue.origin, found)}`;
    case 'too_big':
      return `expected ${bound(issue.origin, 'at most', issue.maximum, issue.inclusive)}, found ${measure(issue.origin, found)}`;
    case 'invalid_format':
      return `expected ${isCustom(issue.message) ? issue.message : formatName(issue)}, found ${foundText}`;
    case 'not_multiple_of':
      return `expected a multiple of ${issue.divisor}, found ${foundText}`;
    case 'invalid_union':
      if (isCustom(issue.message)) return `expected ${issue.message}, found ${foundText}`;
      return `found ${foundText}, which matches none of the accepted forms`;
    case 'custom':
      // Our own refinements name the value they reject.
      return issue.message;
    default:
      return `${issue.message} (found ${foundText})`;
  }
}

// zod's own messages start with a capitalised "Invalid"/"Too"; ours in the schema are phrased as the expectation.
function isCustom(message: string): boolean {
  return !/^(Invalid|Too )/.test(message);
}

function typeName(expected: string): string {
  const names: Record<string, string> = {
    string: 'text',
    number: 'a number',
    int: 'a whole number',
    boolean: 'true or false',
    array: 'a list',
    object: 'a mapping of keys to values',
    record: 'a mapping of keys to values',
  };
  return names[expected] ?? expected;
}

function bound(origin: string, word: string, limit: number | bigint, inclusive: boolean | undefined): string {
  const exact = inclusive === false ? (word === 'at least' ? 'more than' : 'less than') : word;
  if (origin === 'array' || origin === 'set') return `${exact} ${limit} item${limit === 1 ? '' : 's'}`;
  if (origin === 'string') return `${exact} ${limit} character${limit === 1 ? '' : 's'}`;
  return `a number ${exact} ${limit}`;
}

function measure(origin: string, found: unknown): string {
  if (Array.isArray(found)) return `${found.length} item${found.length === 1 ? '' : 's'}`;
  if (origin === 'string' && typeof found === 'string') return `${found.length} (${describeValue(found)})`;
  return describeValue(found);
}

function formatName(issue: Extract<Issue, { code: 'invalid_format' }>): string {
  if (issue.format === 'regex' && 'pattern' in issue) return `text matching ${String(issue.pattern)}`;
  return `a valid ${issue.format}`;
}

function valueAt(input: unknown, path: SettingsPath): unknown {
  let value = input;
  for (const part of path) {
    if (typeof value !== 'object' || value === null) return undefined;
    value = (value as Record<string | number, unknown>)[part];
  }
  return value;
}
