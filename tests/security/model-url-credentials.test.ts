// Attack: a model URL with credentials (http://opsuser:model-url-secret-123@…/v1). /readyz, which needs no
// token even on HOST=0.0.0.0, and the playground's /api/info printed the password, and the model always looked
// down (fetch refuses a URL with credentials). Now every URL shown or logged hides its user-info, and the
// credentials go to the model server as `Authorization: Basic`, which the fake server checks.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../agent/clock.js';
import { createOpenAIModelClient } from '../../agent/model/model-client.js';
import { ModelFallback } from '../../agent/model-fallback.js';
import { readEnvironment } from '../../bot/config/environment.js';
import { type Serving, serve } from '../../bot/serve.js';
import { startUpBanner } from '../../bot/start-up-banner.js';
import { runCliInProcess } from '../cli/cli-process.js';
import { type FakeOpenAIServer, startFakeOpenAIServer, text } from '../fakes/openai-server.js';
import { TEST_SETTINGS } from '../playground/helpers/test-playground.js';
import { RecordingLogger } from './helpers/sink-rig.js';

const USER = 'opsuser';
const PASSWORD = 'model-url-secret-123';
const BASIC = `Basic ${Buffer.from(`${USER}:${PASSWORD}`).toString('base64')}`;

let fake: FakeOpenAIServer;
let serving: Serving;
let dir: string;
let secretURL: string;

beforeAll(async () => {
  fake = await startFakeOpenAIServer({ basicAuth: { user: USER, password: PASSWORD } });
  secretURL = fake.baseURL.replace('http://', `http://${USER}:${PASSWORD}@`);
  dir = mkdtempSync(join(tmpdir(), 'opsbot-model-url-'));
  writeFileSync(join(dir, 'opsbot.yaml'), TEST_SETTINGS);
  serving = await serve({
    env: {
      PORT: '0',
      HOST: '127.0.0.1',
      OPSBOT_CONFIG: join(dir, 'opsbot.yaml'),
      OPSBOT_DATA_DIR: dir,
      OPSBOT_STORE_URL: `sqlite://${join(dir, 'opsbot.sqlite')}`,
      OPENAI_BASE_URL: secretURL,
      OPENAI_MODEL: 'fake-model',
      LOG_LEVEL: 'silent',
    },
    argv: [],
  });
}, 30_000);
afterAll(async () => {
  await serving?.stop();
  await fake?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function until<T>(read: () => Promise<T> | T, done: (value: T) => boolean, what: string): Promise<T> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

function expectNoSecret(shown: string, where: string): void {
  expect(shown, where).not.toContain(PASSWORD);
  expect(shown, where).not.toContain(`${USER}:`);
}

describe('a model URL with credentials', () => {
  it('attack: /readyz and /api/info print the password of OPENAI_BASE_URL', async () => {
    const readyz = await (await fetch(`${serving.url}/readyz`)).text();
    const info = await (await fetch(`${serving.url}/api/info`)).text();
    expectNoSecret(readyz, '/readyz');
    expectNoSecret(info, '/api/info');
    expectNoSecret(startUpBanner(serving.startUp).join('\n'), 'the start-up banner');
    // And the model is up: the credentials reached it as a Basic header.
    expect(JSON.parse(readyz).checks.model).toMatchObject({ ok: true });
    expect(JSON.parse(info).model).toMatchObject({ state: 'ready' });
  });

  it('attack: a model URL with credentials always shows as down; now they go as Authorization: Basic', async () => {
    fake.reply(text('All quiet.'));
    const posted = await fetch(`${serving.url}/api/channels/ops/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        user: 'alice',
        clientId: 'client-creds-1',
        text: '@opsbot anything odd today?',
      }),
    });
    expect(posted.status, await posted.clone().text()).toBe(202);
    const completion = await until(
      () => fake.requests.find((request) => request.path.endsWith('/chat/completions')),
      (found) => found !== undefined,
      'a chat completion',
    );
    expect(completion!.headers.authorization).toBe(BASIC);
    expect(completion!.path).toBe('/v1/chat/completions');
    expect(fake.requests.every((request) => request.headers.authorization === BASIC)).toBe(true);
  });

  it('attack: config check prints the model URL with its password', async () => {
    const check = await runCliInProcess(['config', 'check'], {
      OPSBOT_DATA_DIR: join(dir, 'cli'),
      OPSBOT_STORE_URL: `sqlite://${join(dir, 'cli.sqlite')}`,
      OPENAI_BASE_URL: secretURL,
      OPENAI_MODEL: 'fake-model',
      LOG_LEVEL: 'silent',
      NO_COLOR: '1',
    });
    expectNoSecret(check.out, 'config check');
    expect(check.out).toContain('is reachable and available');
    expect(check.code).toBe(0);
  });

  it('attack: the model-down note and the logs name the model at its URL with the password', async () => {
    const closed = await freePort();
    const logger = new RecordingLogger();
    const clock = new ManualClock();
    const client = createOpenAIModelClient({
      baseURL: `http://${USER}:${PASSWORD}@127.0.0.1:${closed}/v1`,
      model: 'fake-model',
      timeoutMs: 2_000,
      maxRetries: 0,
      logger,
      clock,
      proxyEnv: {},
    });
    const failure = await client.complete({ messages: [{ role: 'user', content: 'hi' }], tools: [] }).then(
      () => undefined,
      (error: Error) => error.message,
    );
    expect(failure).toBeDefined();
    const note = new ModelFallback({
      command: undefined,
      outage: () => client.outage?.(),
      clock,
    }).unreachable();
    expect(note).toContain(`at http://127.0.0.1:${closed}/v1 is unreachable`);
    for (const [where, shown] of [
      ['the error', failure!],
      ['the note', note!],
      ['the logs', logger.lines.join('\n')],
      ['the client', client.baseURL],
    ] as const) {
      expectNoSecret(shown, where);
    }
  });

  it('hides the user-info in start-up errors, and refuses a URL with credentials beside OPENAI_API_KEY', () => {
    const problems = (env: NodeJS.ProcessEnv) => {
      try {
        readEnvironment(env);
        return '';
      } catch (error) {
        return (error as Error).message;
      }
    };
    const badScheme = problems({ OPENAI_BASE_URL: `ftp://${USER}:${PASSWORD}@models.internal/v1` });
    expect(badScheme).toContain('OPENAI_BASE_URL');
    expectNoSecret(badScheme, 'a bad URL');
    const both = problems({ OPENAI_BASE_URL: secretURL, OPENAI_API_KEY: 'sk-anything' });
    expect(both).toContain('Authorization: Basic');
    expect(both).toContain('OPENAI_API_KEY');
    expectNoSecret(both, 'two credentials');
  });
});

/** A port nothing listens on: bound, then released. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
