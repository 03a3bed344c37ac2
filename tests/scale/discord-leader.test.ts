// Discord's one gateway session across gateway processes: of two gateways with DISCORD_TOKEN, only the holder of
// the leader claim connects to the fake Discord; killed with -9, the other takes the session over within 30 s,
// and a mention after the takeover is answered (stepped by a worker, posted through REST).
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cliEnvironment, runCliProcess } from '../cli/cli-process.js';
import { type FakeDiscord, startFakeDiscord } from '../fakes/discord/fake-discord.js';
import { text } from '../fakes/openai-server.js';
import { type OpsbotProcess, type ScaleRig, startScaleRig, waitFor } from './scale-rig.js';

const GUILD = '800000000000000001';
const CHANNEL = '800000000000000002';
const ALICE = { id: '700000000000000001', username: 'alice' };

const SETTINGS = [
  'permissions:',
  '  default_role: viewer',
  '  tasks_per_minute: 100000',
  // A killed leader's session is taken over after about this long; the default (20s) would only slow the test.
  'discord:',
  '  session_lock: 2s',
  '',
].join('\n');

let rig: ScaleRig | undefined;
let discord: FakeDiscord | undefined;
afterEach(async () => {
  await rig?.close();
  await discord?.close();
  rig = discord = undefined;
});

const holdsSession = (process: OpsbotProcess) =>
  process.output().includes('this process holds the Discord session');

/** The address a process printed for its HTTP server (a second gateway listens on a port of its own). */
function httpUrl(process: OpsbotProcess): string {
  const url = /http: +(http:\/\/[\d.:]+)/.exec(process.output())?.[1];
  if (!url) throw new Error(`${process.name} printed no address:\n${process.output()}`);
  return url;
}

async function discordReadiness(process: OpsbotProcess): Promise<{ ok: boolean; detail: string }> {
  const ready = (await (await fetch(`${httpUrl(process)}/readyz`)).json()) as {
    checks: Record<string, { ok: boolean; detail: string }>;
  };
  return ready.checks.discord!;
}

describe('the Discord session across gateways', () => {
  it('is held by one gateway; after kill -9 the other connects within 30 s and answers a mention', async () => {
    discord = await startFakeDiscord({ heartbeatIntervalMs: 1_000 });
    discord.api.addGuild({ id: GUILD, name: 'ops team', channels: [{ id: CHANNEL, name: 'ops' }] });
    const fake = discord;
    rig = await startScaleRig(SETTINGS);
    rig.fake.respond(() => text('Answered after the takeover.'));
    const withDiscord = { DISCORD_TOKEN: 'MTAw.fake.token', DISCORD_API_URL: fake.api.apiUrl };
    const first = await rig.start('gateway-1', 'gateway', withDiscord);
    const second = await rig.start('gateway-2', 'gateway', { ...withDiscord, PORT: '0' });
    await rig.start('worker-1', 'worker', withDiscord);

    // The log line comes just after the connection; wait for it rather than race it.
    await waitFor(
      () => holdsSession(first),
      10_000,
      () => first.output(),
    );
    expect(second.output()).toContain('standby: another gateway holds the Discord session');
    // Several renewals and attempts later, still one session: the standby never connected.
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    expect(fake.gateway.connectedSessions()).toHaveLength(1);
    expect(fake.gateway.identifies).toHaveLength(1);
    expect(holdsSession(second)).toBe(false);
    expect(await discordReadiness(first)).toMatchObject({
      ok: true,
      detail: expect.stringMatching(/^leader · /),
    });
    expect(await discordReadiness(second)).toMatchObject({
      ok: true,
      detail: expect.stringMatching(/^standby: inst_[0-9a-f]+ holds the session$/),
    });

    first.child.kill('SIGKILL');
    const killedAt = Date.now();
    await waitFor(
      () => fake.gateway.connectedSessions().length === 0,
      10_000,
      () => 'the killed leader still looks connected',
    );
    await waitFor(
      () => fake.gateway.connectedSessions().length === 1,
      30_000,
      () => second.output(),
    );
    expect(Date.now() - killedAt).toBeLessThan(30_000);
    await waitFor(
      () => holdsSession(second),
      10_000,
      () => second.output(),
    );
    expect(fake.gateway.identifies).toHaveLength(2);
    expect(await discordReadiness(second)).toMatchObject({ detail: expect.stringMatching(/^leader · /) });

    const cluster = await runCliProcess(
      ['cluster'],
      cliEnvironment({ OPSBOT_STORE_URL: rig.redisUrl, OPSBOT_DATA_DIR: join(rig.dir, 'cli') }),
    );
    expect(cluster.code).toBe(0);
    expect(cluster.stdout).toMatch(
      new RegExp(`discord session: held by inst_[0-9a-f]+ \\(gateway [^:]+:${second.child.pid}\\)`),
    );

    const asked = fake.sendMessage({
      channelId: CHANNEL,
      author: ALICE,
      content: 'how are things?',
      mentionBot: true,
    });
    await waitFor(
      () =>
        fake
          .messages(asked.id)
          .some((message) =>
            JSON.stringify([message.content, message.embeds]).includes('Answered after the takeover.'),
          ),
      30_000,
      () => `${second.output()}\n${JSON.stringify(fake.api.allMessages.map((message) => message.content))}`,
    );
    expect(fake.gateway.connectedSessions()).toHaveLength(1);
  }, 150_000);
});
