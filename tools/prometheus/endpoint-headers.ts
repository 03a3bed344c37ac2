// Header values from the environment, expanded once at start-up, and kept out of every result the tools return.
import { maskValues } from '../../agent/secret-values.js';
import { ENVIRONMENT_REFERENCE } from './endpoint-settings.js';

export type Environment = Readonly<Record<string, string | undefined>>;

/** The headers with each ${NAME} replaced; throws naming the header and variable when one is not set. */
export function expandHeaders(
  headers: Record<string, string>,
  environment: Environment,
): { headers: Record<string, string>; secrets: string[] } {
  const expanded: Record<string, string> = {};
  const secrets: string[] = [];
  for (const [name, template] of Object.entries(headers)) {
    expanded[name] = template.replace(new RegExp(ENVIRONMENT_REFERENCE.source, 'g'), (_match, variable) => {
      const value = environment[variable];
      if (value === undefined || value === '') {
        throw new Error(`headers.${name}: the environment variable ${variable} is not set`);
      }
      if (/[\r\n\0]/.test(value)) {
        throw new Error(`headers.${name}: the environment variable ${variable} holds more than one line`);
      }
      secrets.push(value);
      return value;
    });
  }
  // Longest first, so a secret that contains another is replaced whole.
  return { headers: expanded, secrets: secrets.sort((a, b) => b.length - a.length) };
}

/** A deep copy with every secret's text replaced by the redaction marker, in strings and in object keys. */
export function withoutSecrets<T>(value: T, secrets: readonly string[]): T {
  if (secrets.length === 0) return value;
  const scrub = (text: string) => maskValues(text, secrets);
  const walk = (item: unknown): unknown => {
    if (typeof item === 'string') return scrub(item);
    if (Array.isArray(item)) return item.map(walk);
    if (item !== null && typeof item === 'object') {
      return Object.fromEntries(Object.entries(item).map(([key, inner]) => [scrub(key), walk(inner)]));
    }
    return item;
  };
  return walk(value) as T;
}

/** One `${NAME}` a header value names, with the value the environment gives it. */
export interface HeaderVariable {
  header: string;
  variable: string;
  value: string;
}

/**
 * The variables these headers name that are set, without expanding anything: for the redactor, built before
 * the tools, whose start-up is where a variable not set is an error.
 */
export function headerVariables(headers: Record<string, string>, environment: Environment): HeaderVariable[] {
  const found: HeaderVariable[] = [];
  for (const [header, template] of Object.entries(headers)) {
    for (const [, variable] of template.matchAll(new RegExp(ENVIRONMENT_REFERENCE.source, 'g'))) {
      const value = variable === undefined ? undefined : environment[variable];
      if (variable !== undefined && value !== undefined && value !== '')
        found.push({ header, variable, value });
    }
  }
  return found;
}
