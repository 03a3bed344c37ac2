// `npm start` as a whole: one HTTP server with health checks, the playground, and Slack when its tokens are set.
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Kernel } from '../../agent/kernel.js';
import { SqliteStore } from '../../agent/store/sqlite-store.js';
import { type Serving, serve } from '../../bot/serve.js';
import { type FakeDiscord, startFakeDiscord } from '../fakes/discord/fake-discord.js';
import { type FakeSlackApi, startFakeSlackApi } from '../fakes/slack/fake-slack-api.js';
import { eventCallback } from '../fakes/slack/slack-payload-builders.js';
import { postSigned } from '../fakes/slack/slack-signing.js';

let serving: Serving | undefined;
let slack: FakeSlackApi | undefined;
let discord: FakeDiscord | undefined;
let dir: string;
afterEach(async () => {
  await serving?.stop();
  await slack?.close();
  await discord?.close();
  serving = undefined;
  slack = undefined;
  discord = undefined;
  rmSync(dir, { recursive: true, force: true });
});

function environment(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  dir = mkdtempSync(join(tmpdir(), 'opsbot-serve-'));
  return {
    PORT: '0',
    HOST: '127.0.0.1',
    OPSBOT_DATA_DIR: dir,
    OPSBOT_STORE_URL: `sqlite://${join(dir, 'opsbot.sqlite')}`,
    LOG_LEVEL: 'silent',
    ...extra,
  };
}

describe('serve', () => {
  it('answers /healthz and /readyz, and serves the playground page', async () => {
    serving = await serve({ env: environment(), argv: [] });
    expect(await (await fetch(`${serving.url}/healthz`)).json()).toEqual({ ok: true });
    const ready = (await (await fetch(`${serving.url}/readyz`)).json()) as {
      ready: boolean;
      checks: Record<string, { ok: boolean }>;
    };
    expect(ready.ready).toBe(true);
    expect(ready.checks.store?.ok).toBe(true);
    const page = await (await fetch(`${serving.url}/`)).text();
    expect(page).toContain('<!doctype html>');
  });

  it('stops each part once: the kernel by its service, the store after it by its own', async () => {
    const shutdown = vi.spyOn(Kernel.prototype, 'shutdown');
    const closeStore = vi.spyOn(SqliteStore.prototype, 'close');
    try {
      serving = await serve({ env: environment(), argv: [] });
      await serving.stop();
      expect(shutdown).toHaveBeenCalledTimes(1);
      expect(closeStore).toHaveBeenCalledTimes(1);
      expect(shutdown.mock.invocationCallOrder[0]).toBeLessThan(closeStore.mock.invocationCallOrder[0]!);
    } finally {
      shutdown.mockRestore();
      closeStore.mockRestore();
    }
  });

  it('starts Slack over HTTP beside the playground when its tokens are set, and answers a mention in its thread', async () => {
    slack = await startFakeSlackApi();
    const secret = 'shh-signing-secret';
    serving = await serve({
      env: environment({
        SLACK_BOT_TOKEN: 'xoxb-test-token',
        SLACK_SIGNING_SECRET: secret,
        SLACK_API_URL: slack.apiUrl,
      }),
      argv: [],
    });
    const event = eventCallback(
      {
        type: 'app_mention',
        user: 'UALICE',
        channel: 'C0OPS',
        ts: '1700000000.000100',
        text: '<@UBOT> disk_usage paths=/',
      },
      'Ev0001',
      Date.now(),
    );
    const ready = (await (await fetch(`${serving.url}/readyz`)).json()) as {
      checks: Record<string, { ok: boolean; detail?: string }>;
    };
    expect(ready.checks.slack).toEqual({ ok: true, detail: 'http mode as UBOT' });
    const response = await postSigned(`${serving.url}/slack/events`, JSON.stringify(event), { secret });
    expect(response.status).toBe(200);
    const deadline = Date.now() + 15_000;
    let reply: string | undefined;
    while (Date.now() < deadline && !reply) {
      reply = slack.thread('C0OPS', '1700000000.000100').find((message) => /% full/.test(message.text))?.text;
      if (!reply) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(reply).toMatch(/\/ is [\d.]+% full/);
  });

  it('connects to Discord beside the playground when DISCORD_TOKEN is set, and answers a mention in a thread', async () => {
    discord = await startFakeDiscord();
    discord.api.addGuild({
      id: '800000000000000001',
      name: 'ops team',
      channels: [{ id: '800000000000000002', name: 'ops' }],
    });
    serving = await serve({
      env: environment({
        DISCORD_TOKEN: 'MTAw.fake.token',
        DISCORD_APPLICATION_ID: '910000000000000001',
        DISCORD_API_URL: discord.api.apiUrl,
      }),
      argv: [],
    });
    const ready = (await (await fetch(`${serving.url}/readyz`)).json()) as {
      checks: Record<string, { ok: boolean; detail?: string }>;
    };
    expect(ready.checks.discord).toMatchObject({
      ok: true,
      detail: expect.stringMatching(
        /^leader · gateway ready as \d+ · message content: off \(plain thread replies need a mention/,
      ),
    });
    const asked = discord.sendMessage({
      channelId: '800000000000000002',
      author: { id: '700000000000000001', username: 'alice' },
      content: 'disk_usage paths=/',
      mentionBot: true,
    });
    const deadline = Date.now() + 15_000;
    let reply: string | undefined;
    while (Date.now() < deadline && !reply) {
      reply = discord
        .messages(asked.id)
        .map((message) => JSON.stringify(message.embeds))
        .find((text) => /% full/.test(text));
      if (!reply) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(reply).toMatch(/\/ is [\d.]+% full/);
  });

  it('names the part that could not start, and stops the parts already started, the kernel and store once', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const port = (taken.address() as { port: number }).port;
    const shutdown = vi.spyOn(Kernel.prototype, 'shutdown');
    const closeStore = vi.spyOn(SqliteStore.prototype, 'close');
    try {
      await expect(serve({ env: environment({ PORT: String(port) }), argv: [] })).rejects.toThrow(
        `HTTP server did not start: Cannot listen on 127.0.0.1:${port}`,
      );
      expect(shutdown).toHaveBeenCalledTimes(1);
      expect(closeStore).toHaveBeenCalledTimes(1);
    } finally {
      shutdown.mockRestore();
      closeStore.mockRestore();
      await new Promise((resolve) => taken.close(resolve));
    }
  });
});
