// The environment a command's child process gets: ours, minus anything that looks like a secret.

/** Names ending in these (after "_" or as the whole name) are never passed on. */
const SECRET_NAME = /(^|_)(TOKEN|KEY|SECRET|PASSWORD|PASSWD|PASS|CREDENTIALS?|PRIVATE_KEY|API_KEY)$/i;
/** URLs with a password in them (redis://:pw@host) are secrets whatever the variable is called. */
const URL_WITH_PASSWORD = /^[a-z][a-z0-9+.-]*:\/\/[^/\s:@]*:[^/\s@]+@/i;

export function isSecretVariable(name: string, value: string | undefined): boolean {
  return SECRET_NAME.test(name) || (value !== undefined && URL_WITH_PASSWORD.test(value));
}

/** A copy of `env` without secret-looking variables. */
export function scrubbedEnvironment(env: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const result: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined || isSecretVariable(name, value)) continue;
    result[name] = value;
  }
  return result;
}
