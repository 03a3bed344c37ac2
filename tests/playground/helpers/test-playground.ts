// Starts the whole bot as `npm start` does, on port 0 with a temp SQLite store and test settings.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serve } from '../../../bot/serve.js';
import type { FakeOpenAIServer } from '../../fakes/openai-server.js';

/**
 * Alice may ask for anything, danger included, but someone else must approve it; Bob is an admin who may
 * approve; Carol only looks. `restart_service` is allow-listed /bin/echo, so an approval runs something real
 * and harmless. Alice may also run, ack and snooze patrols; Carol, a viewer, may only run them.
 */
export const TEST_SETTINGS = [
  'permissions:',
  '  roles:',
  '    operator: { tools: ["*"], risks: [read, write, danger], write_without_approval: true, patrols: [run, ack, snooze] }',
  '    admin: { tools: ["*"], risks: [read, write, danger], approve: ["*"], admin: true }',
  '  identities:',
  "    'local:alice': { roles: [operator], display_name: Alice }",
  "    'local:bob': { roles: [admin], display_name: Bob }",
  "    'local:carol': { roles: [viewer], display_name: Carol }",
  'limits:',
  '  model_retries: 0',
  'tools:',
  '  allowed_executables: [/bin/echo, /usr/bin/echo]',
  '  commands:',
  '    restart_service:',
  '      description: Restart a service. In these tests it only prints what it would restart.',
  '      argv: [echo, restarted, "{service}"]',
  '      risk: danger',
  '      parameters:',
  '        service: { description: The service to restart., enum: [api, worker] }',
  '',
].join('\n');

export interface TestPlayground {
  url: string;
  dir: string;
  /** Stops the bot; `keepData` leaves the store for a restart on the same directory. */
  stop(options?: { keepData?: boolean }): Promise<void>;
}

export interface TestPlaygroundOptions {
  model?: FakeOpenAIServer;
  token?: string;
  /** Reuse a directory (and so the store) of an earlier run. */
  dir?: string;
  /** More top-level settings (such as `patrols:`), appended to TEST_SETTINGS. */
  moreSettings?: string;
  /** More configured commands, as YAML entries indented under `tools.commands` (four spaces), beside restart_service. */
  moreCommands?: string;
  /** log_search's roots (`tools.log_roots`); the default, /var/log, otherwise. */
  logRoots?: string[];
  /** More `tools:` settings, as YAML indented two spaces (such as `  alertmanager: { url: … }`). */
  moreTools?: string;
  /** A fixed port, to restart the bot where an open page expects it; a free one otherwise. */
  port?: number;
  /** More environment variables (such as OPSBOT_ALERTS_TOKEN). */
  env?: Record<string, string>;
}

export async function startTestPlayground(options: TestPlaygroundOptions = {}): Promise<TestPlayground> {
  const dir = options.dir ?? mkdtempSync(join(tmpdir(), 'opsbot-playground-'));
  const moreTools = [
    ...(options.logRoots ? [`  log_roots: ${JSON.stringify(options.logRoots)}`] : []),
    ...(options.moreTools ? [options.moreTools.replace(/\n$/, '')] : []),
  ];
  const withRoots =
    moreTools.length > 0
      ? TEST_SETTINGS.replace('\ntools:\n', `\ntools:\n${moreTools.join('\n')}\n`)
      : TEST_SETTINGS;
  const settings = options.moreCommands
    ? withRoots.replace('\n  commands:\n', `\n  commands:\n${options.moreCommands}`)
    : withRoots;
  writeFileSync(join(dir, 'opsbot.yaml'), `${settings}${options.moreSettings ?? ''}`);
  const env: NodeJS.ProcessEnv = {
    PORT: String(options.port ?? 0),
    HOST: '127.0.0.1',
    OPSBOT_CONFIG: join(dir, 'opsbot.yaml'),
    OPSBOT_DATA_DIR: join(dir, 'data'),
    OPSBOT_STORE_URL: `sqlite://${join(dir, 'opsbot.sqlite')}`,
    LOG_LEVEL: 'silent',
    ...(options.token ? { OPSBOT_PLAYGROUND_TOKEN: options.token } : {}),
    ...(options.model ? { OPENAI_BASE_URL: options.model.baseURL, OPENAI_MODEL: 'fake-model' } : {}),
    ...options.env,
  };
  const serving = await serve({ env, argv: [] });
  return {
    url: serving.url,
    dir,
    async stop(stopOptions = {}) {
      await serving.stop();
      if (!stopOptions.keepData) rmSync(dir, { recursive: true, force: true });
    },
  };
}
