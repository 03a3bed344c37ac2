// The redactor of a running opsbot: the built-in shapes, `redaction.patterns`, and the exact secret values the
// settings take from the environment for the tools to send (tools/configured-secret-values.ts).
import { Redactor } from '../agent/redaction.js';
import { configuredSecretValues } from '../tools/configured-secret-values.js';
import type { Settings } from './config/settings-schema.js';

/**
 * `environment` is where the tools read their `${VAR}` header values and pass-through variables: process.env,
 * as createOpsTools and startMcpTools do when compose.ts gives them none.
 */
export function settingsRedactor(
  settings: Settings,
  environment: Readonly<Record<string, string | undefined>> = process.env,
): Redactor {
  return new Redactor(settings.redaction.patterns, {
    secretValues: configuredSecretValues(settings, environment),
  });
}
