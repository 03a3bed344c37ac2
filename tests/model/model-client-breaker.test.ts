// The model client's circuit breaker: fail fast without HTTP during an outage, probe again after the wait.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CircuitBreaker } from '../../agent/circuit-breaker.js';
import { ManualClock } from '../../agent/clock.js';
import { ErrorCode, type SystemError } from '../../agent/errors.js';
import { createOpenAIModelClient } from '../../agent/model/model-client.js';
import type { ModelMessage } from '../../agent/model-message.js';
import { SqliteStore } from '../../agent/store/sqlite-store.js';
import type { Store } from '../../agent/store/store.js';
import { type FakeOpenAIServer, startFakeOpenAIServer, status, text } from '../fakes/openai-server.js';

let fake: FakeOpenAIServer;
let clock: ManualClock;
beforeEach(async () => {
  fake = await startFakeOpenAIServer();
  clock = new ManualClock(Date.UTC(2026, 0, 1, 12, 0, 0));
});
afterEach(async () => {
  await fake.close();
});

const ask = { messages: [{ role: 'user', content: 'status?' }] as ModelMessage[], tools: [] };

function client(breaker?: CircuitBreaker) {
  return createOpenAIModelClient({
    baseURL: fake.baseURL,
    model: 'test-model',
    timeoutMs: 5_000,
    maxRetries: 0,
    clock,
    breaker: breaker ?? { failureThreshold: 3, openMs: 30_000, maxOpenMs: 600_000 },
  });
}

async function rejection(promise: Promise<unknown>): Promise<SystemError> {
  return promise.then(
    () => {
      throw new Error('expected the call to fail');
    },
    (error: SystemError) => error,
  );
}

describe('OpenAI model client: circuit breaker', () => {
  it('fails fast without a request after 3 outages, then a trial after the open time closes it', async () => {
    const model = client();
    fake.reply(status(503), status(503), status(503));
    for (let call = 0; call < 3; call++) {
      expect((await rejection(model.complete(ask))).code).toBe(ErrorCode.ModelUnavailable);
    }
    expect(fake.requests).toHaveLength(3);
    expect(model.breaker.state()).toBe('open');

    const fast = await rejection(model.complete(ask));
    expect(fast.code).toBe(ErrorCode.ModelUnavailable);
    expect(fast.message).toBe(
      `The model "test-model" at ${fake.baseURL} is unavailable after repeated failures, so it is not being called; ` +
        'it will be tried again in 30 s (at 2026-01-01T12:00:30.000Z). The last error was: 503 Service Unavailable.',
    );
    expect(fake.requests).toHaveLength(3);

    clock.advance(30_000);
    fake.reply(text('back'));
    expect((await model.complete(ask)).content).toBe('back');
    expect(fake.requests).toHaveLength(4);
    expect(model.breaker.state()).toBe('closed');
  });

  it('reopens for twice as long when the trial fails', async () => {
    const model = client();
    fake.reply(status(503), status(503), status(503), status(502));
    for (let call = 0; call < 3; call++) await rejection(model.complete(ask));
    clock.advance(30_000);
    await rejection(model.complete(ask));
    expect(fake.requests).toHaveLength(4);
    const fast = await rejection(model.complete(ask));
    expect(fast.message).toMatch(/tried again in 60 s .* The last error was: 502 Bad Gateway\.$/);
    expect(fake.requests).toHaveLength(4);
  });

  it('does not count a rejected key or unknown model as an outage', async () => {
    const model = client();
    fake.reply(status(401), status(404), status(401), status(400), text('fine'));
    for (let call = 0; call < 4; call++) {
      expect((await rejection(model.complete(ask))).code).toBe(ErrorCode.ModelFailed);
    }
    expect(model.breaker.state()).toBe('closed');
    expect((await model.complete(ask)).content).toBe('fine');
  });

  it('keeps an opening in the store: a restarted process on the same SQLite file does not call the model until the open time is out', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'opsbot-model-breaker-'));
    const path = join(dir, 'opsbot.sqlite');
    const kept = (store: Store) =>
      new CircuitBreaker({
        name: 'model:test-model',
        options: { failureThreshold: 1, openMs: 60_000 },
        store,
        clock,
      });
    const before = new SqliteStore(path, { clock });
    const after = new SqliteStore(path, { clock });
    try {
      fake.reply(status(503));
      await rejection(client(kept(before)).complete(ask));
      await before.close();

      const restarted = client(kept(after));
      const fast = await rejection(restarted.complete(ask));
      expect(fast.message).toMatch(/tried again in 60 s/);
      expect(fake.requests).toHaveLength(1);

      clock.advance(60_000);
      fake.reply(text('back'));
      expect((await restarted.complete(ask)).content).toBe('back');
      expect(fake.requests).toHaveLength(2);
      expect(restarted.breaker.state()).toBe('closed');
    } finally {
      await before.close();
      await after.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
