// `npm start` as it ships: bin/start.js in a process of its own, which runs the bundle in dist/ (built by
// `npm install`, and by the tests' global set-up when a source changed) and says so in its start-up log. With Slack,
// Discord and a model configured, each platform's mention is answered through the model and a tool, so the chunks
// the bundle loads lazily are all loaded.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { type FakeDiscord, startFakeDiscord } from '../fakes/discord/fake-discord.js';
import { type FakeOpenAIServer, startFakeOpenAIServer, text, toolCalls } from '../fakes/openai-server.js';
import { type FakeSlackApi, startFakeSlackApi } from '../fakes/slack/fake-slack-api.js';
import { eventCallback } from '../fakes/slack/slack-payload-builders.js';
import { postSigned } from '../fakes/slack/slack-signing.js';
import { startServerProcess } from './server-process.js';

const START = fileURLToPath(new URL('../../bin/start.js', import.meta.url));
const SECRET = 'shh-signing-secret';

let dir: string;
let slack: FakeSlackApi | undefined;
let discord: FakeDiscord | undefined;
let model: FakeOpenAIServer | undefined;
afterEach(async () => {
  await slack?.close();
  await discord?.close();
  await model?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Calls disk_usage, then answers with what it said. */
function diskModel(fake: FakeOpenAIServer): void {
  fake.respond((request, index) => {
    const result = (request.body.messages ?? []).findLast((message) => message.role === 'tool');
    if (!result) return toolCalls([{ id: `call_${index}`, name: 'disk_usage', arguments: { paths: ['/'] } }]);
    const summary = (JSON.parse(String(result.content)) as { summary: string }).summary;
    return text(`Checked the disk: ${summary}`);
  });
}

async function until<T>(find: () => T | undefined, what: string): Promise<T> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const found = find();
    if (found !== undefined) return found;
    if (Date.now() > deadline) throw new Error(`no ${what} within 20 s`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('npm start, as shipped', () => {
  it('serves Slack and Discord beside the playground, and answers both through the model', async () => {
    dir = mkdtempSync(join(tmpdir(), 'opsbot-start-process-'));
    slack = await startFakeSlackApi();
    discord = await startFakeDiscord();
    discord.api.addGuild({
      id: '800000000000000001',
      name: 'ops team',
      channels: [{ id: '800000000000000002', name: 'ops' }],
    });
    model = await startFakeOpenAIServer();
    diskModel(model);
    const { child, done, output } = startServerProcess([START], dir, {
      HOST: '127.0.0.1',
      SLACK_BOT_TOKEN: 'xoxb-test-token',
      SLACK_SIGNING_SECRET: SECRET,
      SLACK_API_URL: slack.apiUrl,
      DISCORD_TOKEN: 'MTAw.fake.token',
      DISCORD_APPLICATION_ID: '910000000000000001',
      DISCORD_API_URL: discord.api.apiUrl,
      OPENAI_BASE_URL: model.baseURL,
      OPENAI_API_KEY: 'sk-test',
      OPENAI_MODEL: 'fake-model',
    });
    try {
      const log = await output.until(/http: +http:\/\/\S+/);
      const url = /http: +(http:\/\/[^\s(]+)/.exec(log)![1]!;
      const banner = await output.until(/ {2}program: .*\n/);
      expect(banner).toMatch(
        / {2}program: {3}bundle dist\/main\.js, built \d{4}-\d\d-\d\d \d\d:\d\d UTC; source maps on; compile cache in \S+"/,
      );
      expect(await (await fetch(`${url}/healthz`)).json()).toEqual({ ok: true });
      const ready = (await (await fetch(`${url}/readyz`)).json()) as {
        ready: boolean;
        checks: Record<string, { ok: boolean; detail: string }>;
      };
      expect(ready.checks.slack).toEqual({ ok: true, detail: 'http mode as UBOT' });
      expect(ready.checks.discord?.detail).toMatch(/^leader · gateway ready/);
      expect(ready.checks.services).toEqual({ ok: true, detail: expect.stringMatching(/^all \d+ started$/) });

      const event = eventCallback(
        {
          type: 'app_mention',
          user: 'UALICE',
          channel: 'C0OPS',
          ts: '1700000000.000100',
          text: '<@UBOT> disk?',
        },
        'Ev0001',
        Date.now(),
      );
      const posted = await postSigned(`${url}/slack/events`, JSON.stringify(event), { secret: SECRET });
      expect(posted.status).toBe(200);
      const slackReply = await until(
        () =>
          slack!
            .thread('C0OPS', '1700000000.000100')
            .find((message) => message.text.includes('Checked the disk'))?.text,
        'Slack reply',
      );
      expect(slackReply).toMatch(/Checked the disk: \/ is [\d.]+% full/);

      const asked = discord.sendMessage({
        channelId: '800000000000000002',
        author: { id: '700000000000000001', username: 'alice' },
        content: 'disk?',
        mentionBot: true,
      });
      const discordReply = await until(
        () =>
          discord!
            .messages(asked.id)
            .map((message) => JSON.stringify(message))
            .find((message) => message.includes('Checked the disk')),
        'Discord reply',
      );
      expect(discordReply).toMatch(/Checked the disk: \/ is [\d.]+% full/);
    } finally {
      child.kill('SIGTERM');
    }
    const ended = await done;
    expect(ended.stderr).toBe('');
    expect(ended.code).toBe(0);
  });
});
