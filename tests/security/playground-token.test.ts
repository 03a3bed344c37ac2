// Attacks on the playground's token: a weak token, guessing it fast, and guessing from many client ids.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../agent/clock.js';
import { readEnvironment } from '../../bot/config/environment.js';
import { createPlaygroundGuard, sameSecret } from '../../bot/playground/playground-auth.js';
import { serve } from '../../bot/serve.js';
import { startTestPlayground, type TestPlayground } from '../playground/helpers/test-playground.js';

const TOKEN = 'ac07eb329a5ccd72145636f05e7bddc30276fc52';

describe('playground token strength', () => {
  it('attack: a one-character OPSBOT_PLAYGROUND_TOKEN is accepted at start-up', async () => {
    for (const weak of ['x', 'hunter2', 'a'.repeat(31)]) {
      let message = '';
      try {
        readEnvironment({ HOST: '0.0.0.0', OPSBOT_PLAYGROUND_TOKEN: weak });
      } catch (error) {
        message = (error as Error).message;
      }
      expect(message, weak).toContain('OPSBOT_PLAYGROUND_TOKEN');
      expect(message).toContain('at least 32 characters');
      expect(message).toContain('openssl rand -hex 32');
      expect(message).toContain(`node -e "console.log(crypto.randomBytes(32).toString('hex'))"`);
      if (weak.length > 1) expect(message).not.toContain(weak);
    }
    await expect(
      serve({ env: { PORT: '0', OPSBOT_PLAYGROUND_TOKEN: 'x', LOG_LEVEL: 'silent' }, argv: [] }),
    ).rejects.toThrow(/OPSBOT_PLAYGROUND_TOKEN/);
    expect(
      readEnvironment({ OPSBOT_PLAYGROUND_TOKEN: TOKEN.slice(0, 32) }).OPSBOT_PLAYGROUND_TOKEN,
    ).toHaveLength(32);
  });

  it('attack: a token of another length makes the comparison throw or exit early', () => {
    expect(sameSecret('x', TOKEN)).toBe(false);
    expect(sameSecret(`${TOKEN}x`, TOKEN)).toBe(false);
    expect(sameSecret('', TOKEN)).toBe(false);
    expect(sameSecret(TOKEN, TOKEN)).toBe(true);
  });
});

describe('guessing the playground token (whole bot over HTTP)', () => {
  let playground: TestPlayground;
  beforeAll(async () => {
    playground = await startTestPlayground({ token: TOKEN });
  }, 30_000);
  afterAll(async () => playground?.stop());

  const info = (headers: Record<string, string>, query = '') =>
    fetch(`${playground.url}/api/info${query}`, { headers });

  it('attack: one client guesses the playground token over and over; after 10 wrong tokens it gets 429 with Retry-After', async () => {
    const signIn = await fetch(`${playground.url}/?token=${TOKEN}`, { redirect: 'manual' });
    const cookie = signIn.headers.get('set-cookie')!.split(';')[0]!;

    for (let guess = 0; guess < 10; guess++) {
      const response = await info({
        'x-opsbot-token': `guess-${guess}`,
        'x-opsbot-client': 'client-mallory',
      });
      expect(response.status).toBe(401);
    }
    const limited = await info({ 'x-opsbot-token': 'guess-10', 'x-opsbot-client': 'client-mallory' });
    expect(limited.status).toBe(429);
    const retryAfter = Number(limited.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    // Once limited, even the right token is not checked for this client: no oracle while limited.
    expect((await info({ 'x-opsbot-token': TOKEN, 'x-opsbot-client': 'client-mallory' })).status).toBe(429);
    // The same client id on the event stream's ?client= is the same client.
    expect((await info({ 'x-opsbot-token': 'guess-11' }, '?client=client-mallory')).status).toBe(429);
    // Another client, and a browser already signed in, are not affected.
    expect((await info({ 'x-opsbot-token': TOKEN, 'x-opsbot-client': 'client-alice' })).status).toBe(200);
    expect((await info({ cookie })).status).toBe(200);
  });

  it('attack: rotating client ids from behind one load balancer address stops at the address ceiling', async () => {
    const signIn = await fetch(`${playground.url}/?token=${TOKEN}`, { redirect: 'manual' });
    const cookie = signIn.headers.get('set-cookie')!.split(';')[0]!;
    let limitedAt = -1;
    for (let guess = 0; guess < 120 && limitedAt < 0; guess++) {
      const response = await info({
        'x-opsbot-token': `rotate-${guess}`,
        'x-opsbot-client': `client-${guess}`,
      });
      if (response.status === 429) limitedAt = guess;
      else expect(response.status).toBe(401);
    }
    // The first test spent 10 of this address's 30; rotating ids cannot get past the other 20.
    expect(limitedAt).toBe(20);
    // Not even the right token is compared for this address now; a signed-in browser is not affected.
    expect((await info({ 'x-opsbot-token': TOKEN, 'x-opsbot-client': 'client-new' })).status).toBe(429);
    expect((await info({ cookie })).status).toBe(200);
  });
});

describe('failed attempts over time', () => {
  let server: Server;
  let url: string;
  const clock = new ManualClock();
  beforeAll(async () => {
    const guard = createPlaygroundGuard({
      token: TOKEN,
      clock,
      failedAttempts: { perClient: 3, perAddress: 40, total: 50, windowMs: 60_000, maxClients: 100 },
    });
    server = createServer((request, response) => {
      if (guard(request, response)) response.writeHead(200).end('in');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const attempt = (token: string, client = 'client-x') =>
    fetch(url, { headers: { 'x-opsbot-token': token, 'x-opsbot-client': client } });

  it('attack: waiting out Retry-After is the only way on; requests without a token never count as guesses', async () => {
    for (let index = 0; index < 5; index++)
      expect((await fetch(url, { headers: { 'x-opsbot-client': 'client-x' } })).status).toBe(401);
    for (let index = 0; index < 3; index++) expect((await attempt('wrong')).status).toBe(401);
    clock.advance(20_000);
    const limited = await attempt('wrong');
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('40');
    clock.advance(40_000);
    expect((await attempt(TOKEN)).status).toBe(200);
  });
});
