// DiscordService under the leader claim, in one process against the fake Discord: of two services on one Store
// only the leader connects; the standby says who holds the session, and takes it over once the leader stops.
import { afterEach, describe, expect, it } from 'vitest';
import { systemClock } from '../../agent/clock.js';
import { silentLogger } from '../../agent/logger.js';
import { MemoryStore } from '../../agent/store/memory-store.js';
import { storeKeys } from '../../agent/store/store-keys.js';
import { ChatPortByPlatform } from '../../bot/chat-port-by-platform.js';
import { readEnvironment } from '../../bot/config/environment.js';
import { SettingsSchema } from '../../bot/config/settings-schema.js';
import { DiscordService } from '../../bot/services/discord-service.js';
import { type FakeDiscord, startFakeDiscord } from '../fakes/discord/fake-discord.js';

let fake: FakeDiscord | undefined;
const services: DiscordService[] = [];
afterEach(async () => {
  for (const service of services.splice(0)) await service.stop();
  await fake?.close();
  fake = undefined;
});

function service(store: MemoryStore, instanceId: string, apiUrl: string): DiscordService {
  const created = new DiscordService({
    opsbot: { store, instanceId },
    router: { handle: async () => ({}) },
    environment: readEnvironment({ DISCORD_TOKEN: 'MTAw.fake.token', DISCORD_API_URL: apiUrl }),
    settings: SettingsSchema.parse({ discord: { session_lock: '1s' } }),
    chat: new ChatPortByPlatform(),
    logger: silentLogger,
  });
  services.push(created);
  return created;
}

async function until(test: () => boolean, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!test()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('DiscordService with the leader claim', () => {
  it('connects only the leader; the standby takes over at once when the leader stops and releases', async () => {
    fake = await startFakeDiscord();
    const store = new MemoryStore(systemClock);
    const leader = service(store, 'inst_aaaaaaaaaaaaaaaa', fake.api.apiUrl);
    const standby = service(store, 'inst_bbbbbbbbbbbbbbbb', fake.api.apiUrl);
    await leader.start();
    await standby.start();
    expect(leader.adapter).toBeDefined();
    expect(standby.adapter).toBeUndefined();
    expect(fake.gateway.connectedSessions()).toHaveLength(1);
    expect(await leader.readiness()).toMatchObject({ ok: true, detail: expect.stringMatching(/^leader · /) });
    expect(await standby.readiness()).toEqual({
      ok: true,
      detail: 'standby: inst_aaaaaaaaaaaaaaaa holds the session',
    });

    await leader.stop();
    services.splice(services.indexOf(leader), 1);
    expect(await store.holder(storeKeys.discordSession)).not.toBe('inst_aaaaaaaaaaaaaaaa');
    await until(() => standby.adapter !== undefined);
    await until(() => fake!.gateway.connectedSessions().length === 1);
    expect(await store.holder(storeKeys.discordSession)).toBe('inst_bbbbbbbbbbbbbbbb');
    expect(fake.gateway.identifies).toHaveLength(2);
  });

  it('disconnects at once when another process holds the claim at its next renewal', async () => {
    fake = await startFakeDiscord();
    const store = new MemoryStore(systemClock);
    const leader = service(store, 'inst_aaaaaaaaaaaaaaaa', fake.api.apiUrl);
    await leader.start();
    expect(fake.gateway.connectedSessions()).toHaveLength(1);
    // As after a long pause: the claim lapsed and someone else took it.
    await store.release(storeKeys.discordSession, 'inst_aaaaaaaaaaaaaaaa');
    await store.claim(storeKeys.discordSession, 'inst_cccccccccccccccc', 60_000);
    await until(() => leader.adapter === undefined);
    await until(() => fake!.gateway.connectedSessions().length === 0);
    expect(await leader.readiness()).toEqual({
      ok: true,
      detail: 'standby: inst_cccccccccccccccc holds the session',
    });
  });

  it('fails to start, and gives the claim up, when the first connection fails', async () => {
    fake = await startFakeDiscord();
    const store = new MemoryStore(systemClock);
    const broken = service(store, 'inst_aaaaaaaaaaaaaaaa', 'http://127.0.0.1:1');
    await expect(broken.start()).rejects.toThrow();
    services.splice(services.indexOf(broken), 1);
    expect(await store.holder(storeKeys.discordSession)).toBeUndefined();
  });
});
