// Attacks on "someone else must approve": one person acting through two surfaces (playground and CLI) counts once.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { refusalReason } from '../../agent/policy/approval-outcomes.js';
import type { Approval } from '../../agent/policy/approval-record.js';
import { someoneCanApprove } from '../../agent/policy/approver-set.js';
import { requesterOrAdmin } from '../../agent/policy/run-authority.js';
import { type Principal, personKey, samePerson } from '../../agent/principal.js';
import { runCli } from '../../bot/cli/main.js';
import type { PermissionSettings } from '../../bot/config/settings-schema.js';
import { SettingsSchema } from '../../bot/config/settings-schema.js';
import { serve } from '../../bot/serve.js';
import { type FakeOpenAIServer, startFakeOpenAIServer, text, toolCalls } from '../fakes/openai-server.js';

/** Alice and Bob are both admins who may approve anything, and neither may approve their own calls. */
const SETTINGS = [
  'permissions:',
  '  roles:',
  '    admin: { tools: ["*"], risks: [read, write, danger], approve: ["*"], admin: true }',
  '  identities:',
  "    'local:alice': { roles: [admin], display_name: Alice }",
  "    'local:bob': { roles: [admin], display_name: Bob }",
  '  channels:',
  "    '*': { risks: [read, write, danger] }",
  '  allow_self_approval: false',
  '  tasks_per_minute: 2',
  'limits:',
  '  model_retries: 0',
  'tools:',
  '  allowed_executables: [/bin/echo, /usr/bin/echo]',
  '  commands:',
  '    restart_service:',
  '      description: Restart a service. Here it only prints what it would restart.',
  '      argv: [echo, restarted, "{service}"]',
  '      risk: danger',
  '      parameters:',
  '        service: { description: The service to restart., enum: [api, worker] }',
  '',
].join('\n');

let model: FakeOpenAIServer;
let dir: string;
let env: NodeJS.ProcessEnv;
let stopServing: (() => Promise<void>) | undefined;
let url: string;

beforeEach(async () => {
  model = await startFakeOpenAIServer();
  dir = mkdtempSync(join(tmpdir(), 'opsbot-same-person-'));
  writeFileSync(join(dir, 'opsbot.yaml'), SETTINGS);
  // The playground and the CLI share the settings and the store, as on one machine.
  env = {
    PORT: '0',
    HOST: '127.0.0.1',
    OPSBOT_CONFIG: join(dir, 'opsbot.yaml'),
    OPSBOT_DATA_DIR: join(dir, 'data'),
    OPSBOT_STORE_URL: `sqlite://${join(dir, 'opsbot.sqlite')}`,
    OPENAI_BASE_URL: model.baseURL,
    OPENAI_MODEL: 'fake-model',
    LOG_LEVEL: 'silent',
  };
  const serving = await serve({ env, argv: [] });
  url = serving.url;
  stopServing = () => serving.stop();
}, 30_000);

afterEach(async () => {
  await stopServing?.();
  await model.close();
  rmSync(dir, { recursive: true, force: true });
});

async function cli(argv: string[]) {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const stdin = new PassThrough();
  let out = '';
  stdout.on('data', (chunk) => {
    out += chunk;
  });
  stderr.on('data', (chunk) => {
    out += chunk;
  });
  stdin.end();
  const code = await runCli(argv, {
    env: { ...env, LOG_LEVEL: 'error' },
    stdout,
    stderr,
    stdin,
    interactive: false,
  });
  return { code, out };
}

async function sayInPlayground(user: string, message: string): Promise<number> {
  const response = await fetch(`${url}/api/channels/ops/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ user, clientId: `client-${user}-1234`, text: message }),
  });
  return response.status;
}

// biome-ignore lint/suspicious/noExplicitAny: the playground's JSON, checked field by field.
async function playgroundMessages(): Promise<any[]> {
  const response = await fetch(`${url}/api/channels/ops/messages`);
  return ((await response.json()) as { messages: unknown[] }).messages;
}

async function until<T>(find: () => Promise<T | undefined>, what: string): Promise<T> {
  for (let attempt = 0; attempt < 200; attempt++) {
    const found = await find();
    if (found !== undefined) return found;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** Bob asks in the playground for a danger call; returns the approval id from its card. */
async function bobAsksInPlayground(): Promise<string> {
  model.reply(
    toolCalls([{ name: 'restart_service', arguments: { service: 'api' } }]),
    text('The api was restarted.'),
  );
  expect(await sayInPlayground('bob', '@opsbot restart the api')).toBe(202);
  return until(async () => {
    const card = (await playgroundMessages()).find((message) => message.content?.kind === 'approval');
    return card?.content.approvalId as string | undefined;
  }, 'the approval card');
}

describe('same person across surfaces', () => {
  it('attack: Bob asks in the playground and approves his own call with `opsbot approve --as bob`; refused as self-approval', async () => {
    const approvalId = await bobAsksInPlayground();
    const own = await cli(['approve', approvalId, '--as', 'bob']);
    expect(own.out).toMatch(/someone else has to approve/);
    expect(own.out).not.toMatch(/Approved by Bob/);

    const other = await cli(['approve', approvalId, '--as', 'alice']);
    expect(other.out).toMatch(/Approved by Alice/);
  }, 30_000);

  it('attack: Bob dodges the task rate limit by alternating between the playground and `opsbot run --as bob`', async () => {
    // The limit counts per clock minute, shared by two processes on the real clock: the three tasks must fall in
    // one minute, so a start late in a minute waits for the next one to begin.
    if (new Date().getUTCSeconds() >= 40) {
      await vi.waitFor(() => expect(new Date().getUTCSeconds()).toBeLessThan(40), {
        timeout: 25_000,
        interval: 100,
      });
    }
    model.respond(() => text('All fine.'));
    expect(await sayInPlayground('bob', '@opsbot how is the api?')).toBe(202);
    expect(await sayInPlayground('bob', '@opsbot how is the worker?')).toBe(202);
    await until(async () => {
      const answers = (await playgroundMessages()).filter((message) =>
        JSON.stringify(message.content).includes('All fine.'),
      );
      return answers.length >= 2 ? true : undefined;
    }, 'two answers in the playground');

    const third = await cli(['run', '--as', 'bob', 'and the database?']);
    expect(third.code).not.toBe(0);
    expect(third.out).toMatch(/at most 2 tasks per minute/);

    const alice = await cli(['run', '--as', 'alice', 'and the database?']);
    expect(alice.code).toBe(0);
  }, 60_000);
});

describe('personKey: the one definition of "the same person"', () => {
  const bob = (platform: Principal['platform'], groups: string[] = []): Principal => ({
    platform,
    userId: platform === 'slack' ? 'U0BOB' : 'bob',
    displayName: 'Bob',
    roles: [],
    groups,
  });

  it('attack: playground:bob and cli:bob pass as two people to self-approval, cancel and answer checks', () => {
    expect(personKey(bob('playground'))).toBe('local:bob');
    expect(personKey(bob('cli'))).toBe('local:bob');
    expect(samePerson(bob('playground'), bob('cli'))).toBe(true);

    const settings: PermissionSettings = SettingsSchema.parse({
      permissions: {
        roles: { admin: { tools: ['*'], risks: ['read', 'write', 'danger'], approve: ['*'] } },
        identities: { 'local:bob': { roles: ['admin'] } },
      },
    }).permissions;
    const approval = {
      requester: bob('playground'),
      tool: 'restart_service',
      conversation: { platform: 'playground', channelId: 'ops' },
      approvers: { roles: ['admin'], identities: ['local:bob'], includesDefaultRole: false },
    } as unknown as Approval;
    expect(refusalReason(approval, bob('cli'), 'approve', settings)).toMatch(/someone else/);
    // Bob is the only approver, so nobody else can approve his call: it must not wait for a click.
    expect(someoneCanApprove(settings, approval.approvers, bob('cli'))).toBe(false);
    // Bob may cancel his own playground run from the CLI: it is his.
    expect(
      requesterOrAdmin(false, bob('cli'), { id: 'run_1', principal: bob('playground') }, 'cancel'),
    ).toEqual({
      allowed: true,
    });
  });

  it('attack: two Slack users who share a user group are taken for one person', () => {
    const ana: Principal = {
      platform: 'slack',
      userId: 'U0ANA',
      displayName: 'Ana',
      roles: [],
      groups: ['S0OPS'],
    };
    const ben: Principal = {
      platform: 'slack',
      userId: 'U0BEN',
      displayName: 'Ben',
      roles: [],
      groups: ['S0OPS'],
    };
    expect(samePerson(ana, ben)).toBe(false);
    expect(personKey(ana)).toBe('slack:U0ANA');
    // A Slack user and a local user with the same id are different people.
    expect(samePerson({ platform: 'slack', userId: 'bob' }, { platform: 'cli', userId: 'bob' })).toBe(false);
    expect(samePerson({ platform: 'discord', userId: '1' }, { platform: 'discord', userId: '1' })).toBe(true);
  });
});
