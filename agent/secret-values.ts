// Exact secret values, hidden wherever they show whatever they look like: a credential read from the environment
// (a command's `env:`, a `${VAR}` in a header) often has no shape a redaction rule knows.
import { REDACTED } from './redaction-marker.js';

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

/**
 * Whether a value given under these names (a variable's, a header's) is to be masked: long enough, and either
 * named as a secret or not an ordinary setting.
 */
export function isSecretValue(names: readonly string[], value: string): boolean {
  if (value.length < MIN_MASKED_VALUE_CHARS) return false;
  if (names.some((name) => SECRET_NAME.test(name))) return true;
  return !COMMON_VALUE.some((pattern) => pattern.test(value));
}

/**
 * The strings to hide for these secret values, longest first (so a value that contains another is hidden whole):
 * each value long enough, its JSON-escaped form (as it shows inside a JSON text), and each long-enough line of a
 * value of several lines (so a part of it kept on one side of an output cap is hidden too).
 */
export function secretValueForms(values: Iterable<string>): string[] {
  const forms = new Set<string>();
  for (const value of values) {
    if (value.length < MIN_MASKED_VALUE_CHARS) continue;
    forms.add(value);
    forms.add(JSON.stringify(value).slice(1, -1));
    for (const line of value.split(/\r?\n/)) {
      if (line.trim().length >= MIN_MASKED_VALUE_CHARS) forms.add(line);
    }
  }
  return [...forms].sort((a, b) => b.length - a.length);
}

/** `text` with every occurrence of each of `forms` (from secretValueForms) replaced by the redaction marker. */
export function maskValues(text: string, forms: readonly string[]): string {
  let result = text;
  for (const form of forms) {
    if (result.includes(form)) result = result.split(form).join(REDACTED);
  }
  return result;
}
