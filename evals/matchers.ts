// Argument and text matchers for expectations: literals compare deeply, `{contains}` and `{matches}` test text.
import { isDeepStrictEqual } from 'node:util';

export function valueMatches(expected: unknown, actual: unknown): boolean {
  if (expected !== null && typeof expected === 'object' && !Array.isArray(expected)) {
    const keys = Object.keys(expected);
    if (keys.length === 1 && keys[0] === 'contains') {
      return (
        typeof actual === 'string' && actual.includes(String((expected as { contains: unknown }).contains))
      );
    }
    if (keys.length === 1 && keys[0] === 'matches') {
      return (
        typeof actual === 'string' &&
        new RegExp(String((expected as { matches: unknown }).matches)).test(actual)
      );
    }
  }
  return isDeepStrictEqual(expected, actual);
}

export interface TextExpectation {
  contains: string[];
  not_contains: string[];
  matches?: string | undefined;
}

/** Why a text fails the expectation (case-insensitive for contains), or an empty list. */
export function textProblems(what: string, expected: TextExpectation, actual: string | undefined): string[] {
  if (actual === undefined) return [`${what}: there is none`];
  const lower = actual.toLowerCase();
  const problems: string[] = [];
  for (const wanted of expected.contains) {
    if (!lower.includes(wanted.toLowerCase())) problems.push(`${what} does not mention "${wanted}"`);
  }
  for (const unwanted of expected.not_contains) {
    if (lower.includes(unwanted.toLowerCase())) problems.push(`${what} mentions "${unwanted}"`);
  }
  if (expected.matches !== undefined && !new RegExp(expected.matches, 'i').test(actual)) {
    problems.push(`${what} does not match /${expected.matches}/`);
  }
  return problems;
}
