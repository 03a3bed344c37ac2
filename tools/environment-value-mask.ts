// Hides, in a child's output, the exact values its command's `env:` gave it: a variable listed there is there
// because the program needs it, and it is often a credential whose shape no redaction rule knows.
import { REDACTED } from '../agent/redaction.js';
import { parseEnvironmentEntry } from './child-environment.js';

/** Shorter values are not masked: they are rarely secrets, and masking them would hide ordinary words. */
export const MIN_MASKED_VALUE_CHARS = 8;

/** A name that says its value is a secret: such a value is masked whatever it looks like. */
const SECRET_NAME = /PASS|PWD|TOKEN|SECRET|KEY|AUTH|CRED|PRIVATE|SIGN|COOKIE|SESSION|JWT|DSN|CONN/i;

/** Values that are settings, not secrets: numbers, switches, paths and path lists, single lower-case words. */
const COMMON_VALUE = [
  /^[+-]?[0-9]+(?:\.[0-9]+)?$/,
  /^(?:true|false|yes|no|on|off|enabled|disabled|none|null)$/i,
  /^(?:[~.]{0,2}\/[A-Za-z0-9_.@+/-]*)(?::[~.]{0,2}\/[A-Za-z0-9_.@+/-]*)*$/,
  /^[a-z]+(?:[-_.][a-z0-9]+)*$/,
];

function isMasked(name: string, value: string): boolean {
  if (value.length < MIN_MASKED_VALUE_CHARS) return false;
  if (SECRET_NAME.test(name)) return true;
  return !COMMON_VALUE.some((pattern) => pattern.test(value));
}

/**
 * The strings to hide in the output of a child started with these `env:` entries, longest first: each value
 * that passes the rule above, its JSON-escaped form, and each long-enough line of a value of several lines
 * (so a part of a multi-line value kept on one side of the output cap is hidden too).
 */
export function environmentValuesToMask(parent: NodeJS.ProcessEnv, entries: readonly string[]): string[] {
  const masked = new Set<string>();
  for (const entry of entries.map(parseEnvironmentEntry)) {
    const value = entry.value ?? parent[entry.name];
    if (value === undefined || !isMasked(entry.name, value)) continue;
    masked.add(value);
    masked.add(JSON.stringify(value).slice(1, -1));
    for (const line of value.split(/\r?\n/)) {
      if (line.trim().length >= MIN_MASKED_VALUE_CHARS) masked.add(line);
    }
  }
  return [...masked].sort((a, b) => b.length - a.length);
}

/** `text` with every occurrence of each of `values` replaced by the redaction marker. */
export function maskValues(text: string, values: readonly string[]): string {
  let result = text;
  for (const value of values) {
    if (result.includes(value)) result = result.split(value).join(REDACTED);
  }
  return result;
}
