// The bot composed as serve() composes it (SQLite store, kernel with file traces and the audit log, router,
// playground with its SSE stream), with a recording logger and a `show_config` command that prints a file.
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Logger } from '../../../agent/logger.js';
import { ChatPortByPlatform } from '../../../bot/chat-port-by-platform.js';
import { createOpsbot, type Opsbot } from '../../../bot/compose.js';
import { readEnvironment } from '../../../bot/config/environment.js';
import { loadSettings } from '../../../bot/config/load-settings.js';
import { HttpServer } from '../../../bot/http/http-server.js';
import { startPlayground } from '../../../bot/playground/start-playground.js';
import { Router } from '../../../bot/router/router.js';
import type { FakeOpenAIServer } from '../../fakes/openai-server.js';
import { EventStream } from '../../playground/helpers/event-stream.js';

/** Every line any logger (or child) was given, as JSON. */
export class RecordingLogger implements Logger {
  constructor(
    readonly lines: string[] = [],
    private readonly bindings: Record<string, unknown> = {},
  ) {}
  private record(level: string, obj: object, msg?: string): void {
    this.lines.push(JSON.stringify({ level, ...this.bindings, ...obj, msg }));
  }
  debug(obj: object, msg?: string) {
    this.record('debug', obj, msg);
  }
  info(obj: object, msg?: string) {
    this.record('info', obj, msg);
  }
  warn(obj: object, msg?: string) {
    this.record('warn', obj, msg);
  }
  error(obj: object, msg?: string) {
    this.record('error', obj, msg);
  }
  child(bindings: Record<string, unknown>): Logger {
    return new RecordingLogger(this.lines, { ...this.bindings, ...bindings });
  }
}

export interface SinkRig {
  url: string;
  opsbot: Opsbot;
  logger: RecordingLogger;
  live: EventStream;
  say(user: string, text: string): Promise<void>;
  settled(): Promise<void>;
  /** Every file the bot wrote: its trace files, and its store (the SQLite files), as text. */
  filesOnDisk(): { traces: string; store: string };
  stop(): Promise<void>;
}

export interface SinkRigOptions {
  /** tools.output_limit_bytes; the default when absent. */
  outputLimitBytes?: number;
  /** More entries under tools.commands, as YAML lines indented by four spaces. */
  moreCommands?: string[];
  /** More programs for tools.allowed_executables. */
  moreExecutables?: string[];
  /** More `tools:` settings, as YAML lines indented by two spaces (such as `  network: { allow: [127.0.0.1] }`). */
  moreTools?: string[];
  /** More top-level settings (such as `mcp:`), as YAML lines. */
  moreSettings?: string[];
}

const settingsFor = (secretsFile: string, options: SinkRigOptions) =>
  [
    'permissions:',
    '  roles:',
    '    operator: { tools: ["*"], risks: [read, write, danger], write_without_approval: true }',
    '  identities:',
    "    'local:alice': { roles: [operator], display_name: Alice }",
    'limits:',
    '  model_retries: 0',
    'tools:',
    `  allowed_executables: ${JSON.stringify(['/bin/cat', '/usr/bin/cat', ...(options.moreExecutables ?? [])])}`,
    ...(options.outputLimitBytes ? [`  output_limit_bytes: ${options.outputLimitBytes}`] : []),
    ...(options.moreTools ?? []),
    '  commands:',
    '    show_config:',
    '      description: Prints the app configuration. Use when asked about the config. Do not use to change it.',
    `      argv: [cat, ${JSON.stringify(secretsFile)}]`,
    ...(options.moreCommands ?? []),
    ...(options.moreSettings ?? []),
    '',
  ].join('\n');

function readTree(path: string): string {
  if (statSync(path).isDirectory())
    return readdirSync(path)
      .map((name) => readTree(join(path, name)))
      .join('\n');
  return readFileSync(path).toString('latin1');
}

export async function startSinkRig(
  model: FakeOpenAIServer,
  secretsText: string,
  options: SinkRigOptions = {},
): Promise<SinkRig> {
  const dir = mkdtempSync(join(tmpdir(), 'opsbot-sinks-'));
  const secretsFile = join(dir, 'app.env');
  writeFileSync(secretsFile, secretsText);
  writeFileSync(join(dir, 'opsbot.yaml'), settingsFor(secretsFile, options));
  const environment = readEnvironment({
    PORT: '0',
    HOST: '127.0.0.1',
    OPSBOT_DATA_DIR: join(dir, 'data'),
    OPSBOT_STORE_URL: `sqlite://${join(dir, 'store', 'opsbot.sqlite')}`,
    OPENAI_BASE_URL: model.baseURL,
    OPENAI_MODEL: 'fake-model',
    LOG_LEVEL: 'debug',
  });
  const { settings } = await loadSettings(join(dir, 'opsbot.yaml'), { origin: 'argument' });
  const logger = new RecordingLogger();
  const chat = new ChatPortByPlatform();
  const opsbot = await createOpsbot({ environment, settings, chat, logger });
  const router = new Router({ kernel: opsbot.kernel, settings, logger });
  const http = new HttpServer({ host: environment.HOST, port: environment.PORT, logger });
  const playground = await startPlayground({
    opsbot,
    router,
    httpServer: http,
    settings,
    environment,
    logger,
  });
  chat.register('playground', playground.port);
  const url = await http.listen();
  const live = await EventStream.open(`${url}/api/events?client=client-sinks`);
  await live.next((event) => event.event === 'ready');
  const settled = async () => {
    for (let round = 0; round < 3; round++) {
      await new Promise((resolve) => setTimeout(resolve, 5));
      await playground.idle();
      await opsbot.kernel.idle();
    }
  };
  return {
    url,
    opsbot,
    logger,
    live,
    async say(user, text) {
      const response = await fetch(`${url}/api/channels/ops/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ user, clientId: 'client-sinks', text }),
      });
      if (response.status !== 202)
        throw new Error(`post failed: ${response.status} ${await response.text()}`);
    },
    settled,
    filesOnDisk: () => ({ traces: readTree(opsbot.traceDir), store: readTree(join(dir, 'store')) }),
    async stop() {
      live.close();
      await http.close();
      await playground.stop();
      await opsbot.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
