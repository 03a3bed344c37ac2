// `opsbot discord register` as a person runs it (the real CLI entry, settings file and discord.js REST) against
// the fake Discord's application-command routes: created, then "nothing changed"; global and --guild worded apart.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../../bot/cli/main.js';
import { OPS_COMMAND } from '../../bot/discord/register-commands.js';
import { FAKE_DISCORD_BOT, type FakeDiscordApi, startFakeDiscordApi } from '../fakes/discord/fake-discord.js';

const GUILD = '800000000000000001';
let api: FakeDiscordApi;
let dir: string;

beforeEach(async () => {
  api = await startFakeDiscordApi();
  dir = mkdtempSync(join(tmpdir(), 'opsbot-discord-register-'));
  writeFileSync(join(dir, 'opsbot.yaml'), 'permissions:\n  roles: {}\n');
});
afterEach(async () => {
  await api.close();
  rmSync(dir, { recursive: true, force: true });
});

async function register(...flags: string[]) {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (chunk) => (out += chunk));
  stderr.on('data', (chunk) => (err += chunk));
  const env: NodeJS.ProcessEnv = {
    OPSBOT_CONFIG: join(dir, 'opsbot.yaml'),
    OPSBOT_DATA_DIR: join(dir, 'data'),
    LOG_LEVEL: 'error',
    DISCORD_TOKEN: 'MTAw.fake.token',
    DISCORD_APPLICATION_ID: FAKE_DISCORD_BOT.applicationId,
    DISCORD_API_URL: api.apiUrl,
  };
  const stdin = new PassThrough();
  stdin.end();
  const code = await runCli(['discord', 'register', ...flags], {
    env,
    stdout,
    stderr,
    stdin,
    interactive: false,
  });
  return { code, out, err };
}

const APP = FAKE_DISCORD_BOT.applicationId;

describe('opsbot discord register against the fake Discord', () => {
  it('registers /ops in a server at once, and a second run changes nothing', async () => {
    const first = await register('--guild', GUILD);
    expect(first).toMatchObject({ code: 0, err: '' });
    expect(first.out).toBe(`Registered /ops in server ${GUILD}: created /ops.\n`);
    expect(api.commands.get(GUILD)).toEqual([
      expect.objectContaining({ name: 'ops', options: OPS_COMMAND.options }),
    ]);

    const second = await register('--guild', GUILD);
    expect(second).toMatchObject({ code: 0, err: '' });
    expect(second.out).toBe(`/ops is already registered in server ${GUILD}; nothing changed.\n`);
    const route = `/applications/${APP}/guilds/${GUILD}/commands`;
    expect(api.calls.map((call) => `${call.method} ${call.route}`)).toEqual([
      `GET ${route}`,
      `PUT ${route}`,
      `GET ${route}`,
    ]);
    expect(api.calls.every((call) => call.headers.authorization === 'Bot MTAw.fake.token')).toBe(true);
  });

  it('registers globally with a note that it takes a while, and is idempotent there too', async () => {
    const first = await register();
    expect(first.code).toBe(0);
    expect(first.out).toContain('Registered /ops globally: created /ops.');
    expect(first.out).toContain('use --guild <id> to try it at once');
    expect(api.commands.get('global')).toHaveLength(1);
    expect(api.commands.has(GUILD)).toBe(false);

    const second = await register();
    expect(second.out).toContain('/ops is already registered globally; nothing changed.');
    expect(api.callsTo('PUT', /\/commands$/)).toHaveLength(1);
  });

  it('refuses a --guild that is not a server id, before calling Discord', async () => {
    const result = await register('--guild', 'ops-team');
    expect(result.code).not.toBe(0);
    expect(result.err).toContain('--guild must be a server id');
    expect(api.calls).toEqual([]);
  });
});
