// /readyz and the playground's model dot report the model as it is (the server answers and has it), not as
// configured, from a cached check.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type Serving, serve } from '../../bot/serve.js';
import { type FakeOpenAIServer, startFakeOpenAIServer } from '../fakes/openai-server.js';

let serving: Serving | undefined;
let fake: FakeOpenAIServer | undefined;
let dir: string;
afterEach(async () => {
  await serving?.stop();
  await fake?.close();
  serving = undefined;
  fake = undefined;
  rmSync(dir, { recursive: true, force: true });
});

async function serveWithModel(model: Record<string, string>): Promise<Serving> {
  dir = mkdtempSync(join(tmpdir(), 'opsbot-model-ready-'));
  serving = await serve({
    env: {
      PORT: '0',
      HOST: '127.0.0.1',
      OPSBOT_DATA_DIR: dir,
      OPSBOT_STORE_URL: `sqlite://${join(dir, 'opsbot.sqlite')}`,
      LOG_LEVEL: 'silent',
      ...model,
    },
    argv: [],
  });
  return serving;
}

interface Readiness {
  ready: boolean;
  checks: Record<string, { ok: boolean; detail?: string; advisory?: boolean }>;
}

async function readiness(url: string): Promise<Readiness> {
  return (await (await fetch(`${url}/readyz`)).json()) as Readiness;
}

async function pageModel(url: string): Promise<{ configured: boolean; state?: string; detail?: string }> {
  return ((await (await fetch(`${url}/api/info`)).json()) as { model: never }).model;
}

const modelListings = () =>
  fake!.requests.filter((request) => request.method === 'GET' && request.path.endsWith('/models')).length;

describe('the model in /readyz and on the playground page', () => {
  it('is ready when the server answers and lists the model, and is asked at most once per 30 s', async () => {
    fake = await startFakeOpenAIServer();
    const { url } = await serveWithModel({ OPENAI_BASE_URL: fake.baseURL, OPENAI_MODEL: 'fake-model' });
    const ready = await readiness(url);
    expect(ready.ready).toBe(true);
    expect(ready.checks.model).toMatchObject({
      ok: true,
      detail: expect.stringMatching(/^ready: model "fake-model"/),
    });
    expect(await pageModel(url)).toMatchObject({ configured: true, name: 'fake-model', state: 'ready' });
    await readiness(url);
    await pageModel(url);
    expect(modelListings()).toBe(1);
  });

  it('says the model is missing when the server does not have it, without taking the bot out of service', async () => {
    fake = await startFakeOpenAIServer();
    const { url } = await serveWithModel({ OPENAI_BASE_URL: fake.baseURL, OPENAI_MODEL: 'llama-nope' });
    const ready = await readiness(url);
    expect(ready.checks.model).toMatchObject({
      ok: false,
      advisory: true,
      detail: expect.stringContaining('has no model "llama-nope"; it serves: fake-model'),
    });
    // Commands still run, and people are told the model is down: the replica stays in service.
    expect(ready.ready).toBe(true);
    expect(await pageModel(url)).toMatchObject({ configured: true, state: 'missing' });
  });

  it('says the model is unreachable when its server is down', async () => {
    fake = await startFakeOpenAIServer();
    const baseURL = fake.baseURL;
    await fake.close();
    fake = undefined;
    const { url } = await serveWithModel({ OPENAI_BASE_URL: baseURL, OPENAI_MODEL: 'fake-model' });
    const ready = await readiness(url);
    expect(ready.checks.model).toMatchObject({
      ok: false,
      detail: expect.stringMatching(/^unreachable: model "fake-model" .* is unreachable \(ECONNREFUSED\)/),
    });
    expect(await pageModel(url)).toMatchObject({ configured: true, state: 'unreachable' });
  });

  it('has no model part without a model', async () => {
    const { url } = await serveWithModel({});
    const ready = await readiness(url);
    expect(ready.checks.model).toBeUndefined();
    expect(await pageModel(url)).toEqual({ configured: false });
  });
});
