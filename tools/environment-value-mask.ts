// Hides, in a child's output, the exact values its command's `env:` gave it: a variable listed there is there
// because the program needs it, and it is often a credential whose shape no redaction rule knows.
import { isSecretValue, secretValueForms } from '../agent/secret-values.js';
import { parseEnvironmentEntry } from './child-environment.js';

/**
 * The strings to hide in the output of a child started with these `env:` entries, longest first: each value
 * that isSecretValue passes under its variable's name, in the forms secretValueForms lists.
 */
export function environmentValuesToMask(parent: NodeJS.ProcessEnv, entries: readonly string[]): string[] {
  const secrets: string[] = [];
  for (const entry of entries.map(parseEnvironmentEntry)) {
    const value = entry.value ?? parent[entry.name];
    if (value !== undefined && isSecretValue([entry.name], value)) secrets.push(value);
  }
  return secretValueForms(secrets);
}
