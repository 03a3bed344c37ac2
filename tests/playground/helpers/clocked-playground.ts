// The bot composed as serve() composes it (SQLite store, kernel, router, playground on the HTTP server), but on a
// ManualClock and without sweeps of its own: tests move time and run the recovery and expiry sweeps themselves.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ManualClock } from '../../../agent/clock.js';
import type { Kernel } from '../../../agent/kernel.js';
import { silentLogger } from '../../../agent/logger.js';
import { StoreEpoch } from '../../../agent/store/store-epoch.js';
import { StoreResetWatch } from '../../../agent/store-reset-watch.js';
import { ChatPortByPlatform } from '../../../bot/chat-port-by-platform.js';
import { createOpsbot, type Opsbot } from '../../../bot/compose.js';
import { readEnvironment } from '../../../bot/config/environment.js';
import { loadSettings } from '../../../bot/config/load-settings.js';
import { HttpServer } from '../../../bot/http/http-server.js';
import type { PresentedMessage } from '../../../bot/playground/playground-view.js';
import { startPlayground } from '../../../bot/playground/start-playground.js';
import { Router } from '../../../bot/router/router.js';
import { storeWritesService } from '../../../bot/services/store-writes-service.js';
import type { FakeOpenAIServer } from '../../fakes/openai-server.js';
import { EventStream } from './event-stream.js';
import { TEST_SETTINGS } from './test-playground.js';

export const CLIENT_ID = 'client-clocked';

export interface ClockedPlayground {
  url: string;
  clock: ManualClock;
  kernel: Kernel;
  /** The composed bot, for tests that reach its store. */
  opsbot: Opsbot;
  /** The store-reset watch, on no timer: tests call its check as its timer would. */
  storeReset: StoreResetWatch;
  /** This browser's live stream: private replies arrive here. */
  live: EventStream;
  /** Types into #ops (or a thread) as a local user, as the page does. */
  say(user: string, text: string, threadId?: string): Promise<{ status: number; body: PlaygroundJson }>;
  /** Presses a button, by the id the message's view gave it. */
  press(user: string, messageId: string, button: string): Promise<{ status: number; body: PlaygroundJson }>;
  /** #ops as a page loading now would get it: each bot message with its view as of the clock. */
  messages(): Promise<PresentedMessage[]>;
  /** Waits until every event handed to the router is handled and the worker has nothing left to do. */
  settled(): Promise<void>;
  stop(): Promise<void>;
}

// biome-ignore lint/suspicious/noExplicitAny: response bodies are JSON whose shape each test checks.
type PlaygroundJson = any;

export interface ClockedPlaygroundOptions {
  /** More configured commands, as YAML entries indented under `tools.commands` (four spaces), beside restart_service. */
  moreCommands?: string;
}

export async function startClockedPlayground(
  model: FakeOpenAIServer,
  options: ClockedPlaygroundOptions = {},
): Promise<ClockedPlayground> {
  const dir = mkdtempSync(join(tmpdir(), 'opsbot-clocked-'));
  const settingsText = options.moreCommands
    ? TEST_SETTINGS.replace('\n  commands:\n', `\n  commands:\n${options.moreCommands}`)
    : TEST_SETTINGS;
  writeFileSync(join(dir, 'opsbot.yaml'), settingsText);
  const clock = new ManualClock(Date.UTC(2026, 0, 1, 12, 0));
  const environment = readEnvironment({
    PORT: '0',
    HOST: '127.0.0.1',
    OPSBOT_DATA_DIR: join(dir, 'data'),
    OPSBOT_STORE_URL: `sqlite://${join(dir, 'opsbot.sqlite')}`,
    OPENAI_BASE_URL: model.baseURL,
    OPENAI_MODEL: 'fake-model',
    LOG_LEVEL: 'silent',
  });
  const { settings } = await loadSettings(join(dir, 'opsbot.yaml'), { origin: 'argument' });
  const chat = new ChatPortByPlatform();
  const opsbot = await createOpsbot({ environment, settings, chat, logger: silentLogger, clock });
  const storeReset = new StoreResetWatch({
    epoch: new StoreEpoch(opsbot.store),
    store: opsbot.store,
    kernel: opsbot.kernel,
    logger: silentLogger,
    timers: { setTimeout: () => undefined, clearTimeout() {} },
    intervalMs: 15_000,
  });
  await storeReset.start();
  const router = new Router({ kernel: opsbot.kernel, settings, logger: silentLogger, clock, storeReset });
  const http = new HttpServer({ host: environment.HOST, port: environment.PORT, logger: silentLogger });
  const playground = await startPlayground({
    opsbot,
    router,
    httpServer: http,
    settings,
    environment,
    logger: silentLogger,
    clock,
  });
  chat.register('playground', playground.port);
  // As serve() adds it: /readyz fails while the store refuses writes.
  const storeWrites = storeWritesService(opsbot);
  http.addReadinessCheck(storeWrites.name, () => storeWrites.readiness!());
  const url = await http.listen();
  const live = await EventStream.open(`${url}/api/events?client=${CLIENT_ID}`);
  await live.next((event) => event.event === 'ready');

  const post = async (path: string, body: unknown) => {
    const response = await fetch(`${url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as PlaygroundJson };
  };
  const settled = async () => {
    // The HTTP answer comes before the router runs; a handled event may queue work for the worker, and back.
    for (let round = 0; round < 3; round++) {
      await new Promise((resolve) => setTimeout(resolve, 5));
      await playground.idle();
      await opsbot.kernel.idle();
    }
  };
  return {
    url,
    clock,
    kernel: opsbot.kernel,
    opsbot,
    storeReset,
    live,
    say: (user, text, threadId) =>
      post('/api/channels/ops/messages', {
        user,
        clientId: CLIENT_ID,
        text,
        ...(threadId ? { threadId } : {}),
      }),
    press: (user, messageId, button) =>
      post('/api/actions', { user, clientId: CLIENT_ID, messageId, button }),
    async messages() {
      const response = await fetch(`${url}/api/channels/ops/messages`);
      return ((await response.json()) as { messages: PresentedMessage[] }).messages;
    },
    settled,
    async stop() {
      storeReset.stop();
      live.close();
      await http.close();
      await playground.stop();
      await opsbot.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
