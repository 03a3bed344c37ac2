// Loads settings and environment for a CLI command, and builds the local operator's principal and opsbot.
import { resolve } from 'node:path';
import { didYouMean } from '../../agent/did-you-mean.js';
import { CallerError, ErrorCode } from '../../agent/errors.js';
import { withResolvedRoles } from '../../agent/policy/resolve-roles.js';
import type { Principal } from '../../agent/principal.js';
import type { Redactor } from '../../agent/redaction.js';
import { type ComposeOptions, createOpsbot, type Opsbot } from '../compose.js';
import { type Environment, environmentWarnings, readEnvironment } from '../config/environment.js';
import { type LoadedSettings, loadSettings, settingsLocation } from '../config/load-settings.js';
import { createLogger } from '../logger.js';
import { readServerSettingsMarker, type ServerSettingsMarker } from '../server-settings-marker.js';
import { settingsRedactor } from '../settings-redactor.js';
import type { CliIo } from './cli-io.js';
import { TerminalChatPort } from './terminal-chat-port.js';

export interface CliContext {
  environment: Environment;
  loaded: LoadedSettings;
  redactor: Redactor;
  logger: ReturnType<typeof createLogger>;
  /** Settings that are valid but will not do what they seem to (see environmentWarnings). */
  warnings: string[];
}

export async function loadCliContext(io: CliIo, configPath?: string): Promise<CliContext> {
  const environment = readEnvironment(io.env);
  const chosen = configPath
    ? { path: configPath, origin: 'argument' as const }
    : settingsLocation(environment);
  const server = readServerSettingsMarker(environment.OPSBOT_DATA_DIR);
  const location = settingsBesideServer(chosen, server);
  const loaded = await loadSettings(location.path, { origin: location.origin });
  if (location.note) io.stderr.write(`opsbot: ${location.note}\n`);
  const redactor = settingsRedactor(loaded.settings);
  // The CLI's own output is the terminal; logs go to stderr so they never mix with results.
  const logger = createLogger({
    level: environment.LOG_LEVEL === 'info' ? 'warn' : environment.LOG_LEVEL,
    redact: (text) => redactor.redact(text),
    pretty: true,
    destination: io.stderr,
  });
  return { environment, loaded, redactor, logger, warnings: environmentWarnings(io.env) };
}

/**
 * The settings a CLI command reads beside a server running on this machine with the same data folder: the
 * server's file when none was chosen (--config, OPSBOT_CONFIG), so both see the same patrols and URLs; a file
 * chosen that is not the server's is read, and said.
 */
export function settingsBesideServer(
  chosen: { path: string; origin: 'argument' | 'OPSBOT_CONFIG' | 'default' },
  server: ServerSettingsMarker | undefined,
): { path: string; origin: 'argument' | 'OPSBOT_CONFIG' | 'default'; note?: string } {
  if (!server) return chosen;
  const theirs = server.settingsPath ?? '(the built-in defaults)';
  if (resolve(chosen.path) === server.settingsPath) return chosen;
  if (chosen.origin === 'default' && server.settingsPath) {
    return {
      path: server.settingsPath,
      origin: 'argument',
      note: `reading the settings of the server running here (pid ${server.pid}): ${server.settingsPath}; pass --config to read another file`,
    };
  }
  if (chosen.origin === 'default') return chosen;
  return {
    ...chosen,
    note: `reading ${resolve(chosen.path)}, but the server running here (pid ${server.pid}) reads ${theirs}: patrols and checks may differ from the server's`,
  };
}

/**
 * The person at the terminal, as the local identity `local:<name>` in the settings. A name given with --as must
 * be configured: a typo would otherwise act, without a word, with the default role. Without --as the CLI acts
 * as `local:operator`, configured or not (then with the default role), as the help says.
 */
export function localPrincipal(context: CliContext, name: string, explicit = true): Principal {
  const key = `local:${name}`;
  const identities = context.loaded.settings.permissions.identities;
  const configured = Object.hasOwn(identities, key);
  if (explicit && !configured) {
    const locals = Object.keys(identities)
      .filter((identity) => identity.startsWith('local:'))
      .map((identity) => identity.slice('local:'.length));
    throw new CallerError(
      ErrorCode.NotAllowed,
      `there is no local user "${name}"${didYouMean(name, locals)} in ${context.loaded.path}. ` +
        (locals.length > 0
          ? `Local users: ${locals.join(', ')}. Add 'local:${name}' under permissions.identities to create one.`
          : `Add 'local:${name}' under permissions.identities to create one.`),
    );
  }
  const displayName = configured ? (identities[key]!.display_name ?? name) : name;
  return withResolvedRoles(context.loaded.settings.permissions, {
    platform: 'cli',
    userId: name,
    displayName,
    roles: [],
    groups: [],
  });
}

/** The opsbot a CLI command works with: settings and environment from the context, chat printed by `write`. */
export function terminalOpsbot(
  context: CliContext,
  write: (line: string) => void,
  options: Pick<ComposeOptions, 'mcp' | 'store'> = {},
): Promise<Opsbot> {
  return createOpsbot({
    ...options,
    environment: context.environment,
    settings: context.loaded.settings,
    chat: new TerminalChatPort(write),
    logger: context.logger,
    redactor: context.redactor,
    besideServer: true,
  });
}
