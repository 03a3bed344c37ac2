// The playground's HTTP side as start-playground wires it (real guard, API, stream and SQLite store) on the one
// HTTP server, without a kernel: tests fill the store directly and attack it over HTTP.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { systemClock } from '../../../agent/clock.js';
import { silentLogger } from '../../../agent/logger.js';
import { openStore } from '../../../agent/store/open-store.js';
import type { Store } from '../../../agent/store/store.js';
import { SettingsSchema } from '../../../bot/config/settings-schema.js';
import { HttpServer, type HttpTimeouts } from '../../../bot/http/http-server.js';
import { createPlaygroundHandler } from '../../../bot/playground/playground-api.js';
import { createPlaygroundGuard } from '../../../bot/playground/playground-auth.js';
import { PlaygroundDispatcher } from '../../../bot/playground/playground-dispatch.js';
import { PlaygroundEvents, type PlaygroundEventsOptions } from '../../../bot/playground/playground-events.js';
import { DEFAULT_CHANNEL, PlaygroundStore } from '../../../bot/playground/playground-store.js';
import { playgroundUsers } from '../../../bot/playground/playground-users.js';

export interface PlaygroundRig {
  url: string;
  store: PlaygroundStore;
  events: PlaygroundEvents;
  stop(): Promise<void>;
}

export interface PlaygroundRigOptions {
  maxChannels?: number;
  timeouts?: Partial<HttpTimeouts>;
  streams?: Pick<PlaygroundEventsOptions, 'maxStreams' | 'maxStreamsPerClient'>;
}

export async function startPlaygroundRig(options: PlaygroundRigOptions = {}): Promise<PlaygroundRig> {
  const dir = mkdtempSync(join(tmpdir(), 'opsbot-security-'));
  const backend: Store = await openStore(`sqlite://${join(dir, 'opsbot.sqlite')}`);
  const settings = SettingsSchema.parse({});
  const store = new PlaygroundStore(backend, systemClock, {
    maxChannels: options.maxChannels ?? settings.playground.max_channels,
  });
  await store.ensureChannel(DEFAULT_CHANNEL);
  const events = new PlaygroundEvents({ store, logger: silentLogger, ...options.streams });
  const dispatcher = new PlaygroundDispatcher({
    // Nothing here mentions the bot; an event that would go to the router is dropped.
    intake: { receive: async () => {} },
    store,
    events,
    permissions: settings.permissions,
    clock: systemClock,
    botName: settings.bot_name,
    slashCommand: '/ops',
  });
  const http = new HttpServer({
    host: '127.0.0.1',
    port: 0,
    logger: silentLogger,
    ...(options.timeouts ? { timeouts: options.timeouts } : {}),
  });
  http.mount(
    '/',
    createPlaygroundHandler({
      guard: createPlaygroundGuard({ token: undefined }),
      clock: systemClock,
      store,
      events,
      dispatcher,
      users: playgroundUsers(settings.permissions),
      info: { botName: 'opsbot', slashCommand: '/ops', model: { configured: false }, defaultChannel: 'ops' },
      maxTextChars: settings.limits.max_task_chars,
    }),
  );
  const url = await http.listen();
  return {
    url,
    store,
    events,
    async stop() {
      events.close();
      await http.close();
      await backend.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
