// Header values from the environment, expanded once at start-up, and kept out of every result the tools return.
import { REDACTED } from '../../agent/redaction.js';
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
  const scrub = (text: string) =>
    secrets.reduce((result, secret) => result.split(secret).join(REDACTED), text);
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
