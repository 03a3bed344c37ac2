// The playground API over real HTTP against the whole bot: validation, threads, ephemerals and the live stream.
import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EventStream } from './helpers/event-stream.js';
import { startTestPlayground, type TestPlayground } from './helpers/test-playground.js';

// biome-ignore lint/suspicious/noExplicitAny: response bodies are JSON whose shape each expect checks.
type Json = any;

const json = async (response: Response): Promise<Json> => response.json();
const getJson = async (url: string): Promise<Json> => json(await fetch(url));

let playground: TestPlayground;
const streams: EventStream[] = [];

beforeAll(async () => {
  playground = await startTestPlayground();
}, 30_000);

afterAll(async () => {
  for (const stream of streams) stream.close();
  await playground?.stop();
});

async function post(path: string, body: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(`${playground.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: response.status, body: await json(response) };
}

async function stream(clientId: string, headers: Record<string, string> = {}): Promise<EventStream> {
  const opened = await EventStream.open(`${playground.url}/api/events?client=${clientId}`, headers);
  streams.push(opened);
  await opened.next((event) => event.event === 'ready');
  return opened;
}

const say = (user: string, clientId: string, text: string, threadId?: string) =>
  post('/api/channels/ops/messages', { user, clientId, text, ...(threadId ? { threadId } : {}) });

describe('playground API', () => {
  it('reports liveness and readiness with the store and the playground', async () => {
    expect(await getJson(`${playground.url}/healthz`)).toEqual({ ok: true });
    const ready = await fetch(`${playground.url}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toMatchObject({
      ready: true,
      checks: { store: { ok: true, detail: expect.stringContaining('sqlite') }, playground: { ok: true } },
    });
  });

  it('lists the local users with their roles, and the default channel', async () => {
    const info = await getJson(`${playground.url}/api/info`);
    expect(info.users).toEqual([
      { id: 'alice', displayName: 'Alice', roles: ['operator'] },
      { id: 'bob', displayName: 'Bob', roles: ['admin'] },
      { id: 'carol', displayName: 'Carol', roles: ['viewer'] },
    ]);
    expect(info.model).toEqual({ configured: false });
    const { channels } = await getJson(`${playground.url}/api/channels`);
    expect(channels.map((channel: { name: string }) => channel.name)).toEqual(['ops']);
  });

  it('refuses bad requests with clear JSON errors', async () => {
    const missing = await post('/api/channels/ops/messages', { user: 'alice', text: '' });
    expect(missing.status).toBe(400);
    expect(missing.body.error).toMatch(/clientId/);
    expect(missing.body.details.map((detail: { path: string }) => detail.path)).toEqual(['clientId', 'text']);
    expect((await post('/api/channels/ops/messages', 'not json')).body.error).toBe(
      'The body is not valid JSON.',
    );
    const form = await post('/api/actions', '{}', { 'content-type': 'text/plain' });
    expect(form.status).toBe(415);
    expect((await say('mallory', 'client-aaaa', 'hi')).body.error).toBe(
      'There is no local user "mallory" in the settings.',
    );
    expect(
      (await post('/api/channels/nope/messages', { user: 'alice', clientId: 'client-aaaa', text: 'x' }))
        .status,
    ).toBe(404);
    expect((await say('alice', 'client-aaaa', '/deploy now')).body.error).toMatch(
      /no \/deploy command.*\/ops help/,
    );
    const extra = await post('/api/actions', {
      user: 'alice',
      clientId: 'client-aaaa',
      messageId: 'm',
      action: 'approve',
      target: 'x',
      admin: true,
    });
    expect(extra.body.error).toMatch(/admin/);
    // A button on a message the store no longer has (emptied, or expired): the clicker learns why and what to do.
    const gone = await post('/api/actions', {
      user: 'bob',
      clientId: 'client-aaaa',
      messageId: 'm_gone',
      button: 'approve:apv_AAAAAAAAAAAAAAAAAAAAAA',
    });
    expect(gone.status).toBe(404);
    expect(gone.body.error).toMatch(/^This message is gone: the store was reset .* Reload the page/);
    expect((await post('/api/channels', { name: 'Bad Name!' })).status).toBe(400);
    expect((await fetch(`${playground.url}/api/channels`, { method: 'DELETE' })).status).toBe(405);
    expect((await fetch(`${playground.url}/playground-api.ts`)).status).toBe(404);
  });

  it('answers a mention in a thread on the message, with the command engine', async () => {
    const live = await stream('client-mention');
    const posted = await say('alice', 'client-mention', '@opsbot disk_usage paths=/');
    expect(posted.status).toBe(202);
    expect(posted.body).toMatchObject({ routed: true, message: { content: { kind: 'user_text' } } });
    const rootId = posted.body.message.id;
    const result = await live.next(
      (event) =>
        event.event === 'message' && event.data.threadId === rootId && event.data.content.kind === 'result',
    );
    expect(result.data.author).toEqual({ kind: 'bot', name: 'opsbot' });
    expect(result.data.content.text).toMatch(/^\/ is [\d.]+% full/);
    expect(result.data.content.details[0].data.rows[0].path).toBe('/');
    // A plain message in the channel is kept but not sent to the bot.
    expect((await say('carol', 'client-mention', 'morning all')).body.routed).toBe(false);
    const { messages } = await getJson(`${playground.url}/api/channels/ops/messages`);
    expect(messages.filter((message: { threadId?: string }) => message.threadId === rootId)).toHaveLength(2);
  });

  it('gives a /ops whoami answer only to the browser that asked', async () => {
    const bobs = await stream('client-bob');
    const carols = await stream('client-carol');
    expect((await say('bob', 'client-bob', '/ops whoami')).body).toEqual({ routed: true });
    const mine = await bobs.next((event) => event.event === 'ephemeral');
    expect(mine.data).toMatchObject({
      userId: 'bob',
      channelId: 'ops',
      text: expect.stringContaining('admin'),
    });
    // Carol asks next; her stream gets her answer and never Bob's, which was written before hers.
    await say('carol', 'client-carol', '/ops whoami');
    const hers = await carols.next((event) => event.event === 'ephemeral');
    expect(hers.data).toMatchObject({ userId: 'carol', text: expect.stringContaining('viewer') });
    expect(carols.events.filter((event) => event.event === 'ephemeral')).toHaveLength(1);
    expect(bobs.events.filter((event) => event.event === 'ephemeral')).toHaveLength(1);
  });

  it('runs `/ops <task>` in a thread on a message that says who asked', async () => {
    const live = await stream('client-slash');
    expect((await say('alice', 'client-slash', '/ops disk_usage paths=/tmp')).body).toEqual({ routed: true });
    const asked = await live.next(
      (event) =>
        event.event === 'message' && event.data.content.text === 'Alice asked: disk_usage paths=/tmp',
    );
    expect(asked.data.threadId).toBeUndefined();
    const result = await live.next(
      (event) =>
        event.event === 'message' &&
        event.data.threadId === asked.data.id &&
        event.data.content.kind === 'result',
    );
    expect(result.data.content.text).toMatch(/^\/tmp/);
  });

  it('creates channels and replays what a reconnecting browser missed', async () => {
    const first = await stream('client-replay');
    const created = await post('/api/channels', { name: '#Deploys', user: 'alice' });
    expect(created.status).toBe(201);
    expect(created.body.channel).toMatchObject({ id: 'deploys', name: 'deploys' });
    expect((await post('/api/channels', { name: 'deploys' })).status).toBe(409);
    await first.next((event) => event.event === 'channel' && event.data.id === 'deploys');
    const lastEventId = first.lastEventId!;
    first.close();
    const missed = await post('/api/channels/deploys/messages', {
      user: 'bob',
      clientId: 'client-replay',
      text: 'v2 is out',
    });
    const again = await stream('client-replay', { 'last-event-id': lastEventId });
    const replayed = await again.next((event) => event.event === 'message');
    expect(replayed.data.id).toBe(missed.body.message.id);
    expect(again.events.find((event) => event.event === 'ready')!.data).toMatchObject({ replayed: true });
  });

  it('answers only requests addressed to this machine', async () => {
    const status = await new Promise<number>((resolve, reject) => {
      const url = new URL(`${playground.url}/api/info`);
      httpRequest(
        { host: url.hostname, port: url.port, path: url.pathname, headers: { host: 'evil.example' } },
        (response) => {
          response.resume();
          resolve(response.statusCode ?? 0);
        },
      )
        .on('error', reject)
        .end();
    });
    expect(status).toBe(403);
  });
});

describe('playground API with a token', () => {
  let guarded: TestPlayground;
  beforeAll(async () => {
    guarded = await startTestPlayground({ token: 'cf5db8ff6cbcf191e90641ddb304a14ca44c4189' });
  }, 30_000);
  afterAll(async () => guarded?.stop());

  it('requires the token on every playground request, from a header or the cookie a first visit sets', async () => {
    const url = guarded.url;
    expect((await fetch(`${url}/api/info`)).status).toBe(401);
    expect((await fetch(`${url}/`, { headers: { accept: 'text/html' } })).status).toBe(401);
    expect((await fetch(`${url}/api/info`, { headers: { 'x-opsbot-token': 'wrong' } })).status).toBe(401);
    expect(
      (
        await fetch(`${url}/api/info`, {
          headers: { 'x-opsbot-token': 'cf5db8ff6cbcf191e90641ddb304a14ca44c4189' },
        })
      ).status,
    ).toBe(200);
    expect(
      (
        await fetch(`${url}/api/info`, {
          headers: { authorization: 'Bearer cf5db8ff6cbcf191e90641ddb304a14ca44c4189' },
        })
      ).status,
    ).toBe(200);

    const first = await fetch(`${url}/?token=cf5db8ff6cbcf191e90641ddb304a14ca44c4189`, {
      redirect: 'manual',
    });
    expect(first.status).toBe(303);
    expect(first.headers.get('location')).toBe('/');
    const cookie = first.headers.get('set-cookie')!;
    expect(cookie).toMatch(/HttpOnly; SameSite=Strict/);
    expect(cookie).not.toContain('cf5db8ff6cbcf191e90641ddb304a14ca44c4189');
    const page = await fetch(`${url}/`, { headers: { cookie: cookie.split(';')[0]! } });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect((await fetch(`${url}/?token=nope`, { redirect: 'manual' })).status).toBe(401);
    // Health checks stay open: they say nothing a token protects.
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
  });
});

describe('playground across a restart', () => {
  it('keeps the history in the Store, and a browser resuming from before it is told to reload it', async () => {
    const before = await startTestPlayground();
    let after: TestPlayground | undefined;
    try {
      const live = await EventStream.open(`${before.url}/api/events?client=client-restart`);
      await live.next((event) => event.event === 'ready');
      const posted = await postMessageTo(before.url, {
        user: 'alice',
        clientId: 'client-restart',
        text: 'before the restart',
      });
      await live.next((event) => event.event === 'message' && event.data.id === posted.message.id);
      const lastEventId = live.lastEventId!;
      live.close();
      await before.stop({ keepData: true });

      after = await startTestPlayground({ dir: before.dir });
      const { messages } = await getJson(`${after.url}/api/channels/ops/messages`);
      expect(messages.map((message: { id: string }) => message.id)).toEqual([posted.message.id]);
      const later = await postMessageTo(after.url, {
        user: 'bob',
        clientId: 'client-restart',
        text: 'after the restart',
      });
      const resumed = await EventStream.open(`${after.url}/api/events?client=client-restart`, {
        'last-event-id': lastEventId,
      });
      // The new process did not see what changed before it started, so it sends no partial replay: the page
      // reloads the history, which has both.
      const ready = await resumed.next((event) => event.event === 'ready');
      expect(ready.data).toEqual({ replayed: false });
      expect(resumed.events.filter((event) => event.event === 'message')).toEqual([]);
      resumed.close();
      const reloaded = await getJson(`${after.url}/api/channels/ops/messages`);
      expect(reloaded.messages.map((message: { id: string }) => message.id)).toEqual([
        posted.message.id,
        later.message.id,
      ]);
    } finally {
      await after?.stop();
    }
  });
});

async function postMessageTo(url: string, body: unknown) {
  const response = await fetch(`${url}/api/channels/ops/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return json(response);
}
