// HTTP mode at the edge: signatures and timestamps checked before any handler, retries never run twice.
import { afterEach, describe, expect, it } from 'vitest';
import { ErrorCode, SystemError } from '../../agent/errors.js';
import { text } from '../fakes/openai-server.js';
import { FAKE_BOT } from '../fakes/slack/fake-slack-api.js';
import { postSigned, slackSignature } from '../fakes/slack/slack-signing.js';
import { CHANNEL, SIGNING_SECRET, SlackHarness, type SlackMode, USERS } from './slack-harness.js';

function mentionBody(eventId: string, ts: string): string {
  return JSON.stringify({
    type: 'event_callback',
    team_id: FAKE_BOT.teamId,
    api_app_id: 'A0FAKE',
    event_id: eventId,
    event_time: 1_767_268_800,
    event: {
      type: 'app_mention',
      user: USERS.alice,
      text: `<@${FAKE_BOT.userId}> check`,
      ts,
      channel: CHANNEL,
    },
  });
}

describe('Slack HTTP requests', () => {
  let h: SlackHarness;
  afterEach(async () => h?.close());

  it('answers 401 to a bad signature, a changed body, a missing signature and a stale timestamp, and runs nothing', async () => {
    h = await SlackHarness.start({ mode: 'http' });
    const body = mentionBody('EvSIGNATURE', h.api.nextTs());
    const now = Math.floor(Date.now() / 1000);
    const attempts = [
      postSigned(h.eventsUrl, body, { secret: 'not-the-secret' }),
      postSigned(h.eventsUrl, body.replace('check', 'chECK'), {
        secret: SIGNING_SECRET,
        signature: slackSignature(SIGNING_SECRET, now, body),
        timestamp: now,
      }),
      postSigned(h.eventsUrl, body, { secret: SIGNING_SECRET, unsigned: true }),
      postSigned(h.eventsUrl, body, { secret: SIGNING_SECRET, timestamp: now - 301 }),
    ];
    for (const result of await Promise.all(attempts)) {
      expect(result.status).toBe(401);
      expect(result.body).toBe('');
    }
    await h.settled();
    expect(h.openai.requests).toHaveLength(0);
    expect(h.api.calls.filter((call) => call.method !== 'auth.test')).toHaveLength(0);
    // Our own auth.test at start-up; Bolt was given the ids, so it made no call of its own.
    expect(h.api.callsTo('auth.test')).toHaveLength(1);
  });

  it('answers the URL verification challenge Slack sends when the events URL is set up', async () => {
    h = await SlackHarness.start({ mode: 'http' });
    const body = JSON.stringify({ type: 'url_verification', token: 'legacy', challenge: 'c-123' });
    const result = await postSigned(h.eventsUrl, body, { secret: SIGNING_SECRET });
    expect(result.status).toBe(200);
    expect(result.body).toContain('c-123');
  });

  it('serves /slack/events from the shared HttpServer, and leaves its other paths to it', async () => {
    h = await SlackHarness.start({ mode: 'http' });
    h.openai.reply(text('served through the shared server'));
    const ts = h.api.nextTs();
    const result = await postSigned(h.eventsUrl, mentionBody('EvSHARED', ts), { secret: SIGNING_SECRET });
    expect(result.status).toBe(200);
    await h.settled();
    expect(h.threadText(ts)).toContain('served through the shared server');
    const base = h.eventsUrl.replace('/slack/events', '');
    expect((await fetch(h.eventsUrl)).status).toBe(405);
    expect((await fetch(`${base}/slack/events/other`, { method: 'POST' })).status).toBe(404);
    expect(await (await fetch(`${base}/healthz`)).json()).toEqual({ ok: true });
    expect((await fetch(`${base}/nowhere`)).status).toBe(404);
  });
});

describe.each<SlackMode>(['http', 'socket'])('Slack retries over %s', (mode) => {
  let h: SlackHarness;
  afterEach(async () => h?.close());

  it('runs a retried event_id once, even while the first delivery is still being handled', async () => {
    h = await SlackHarness.start({ mode });
    h.openai.respond(() => text('done once'));
    const first = await h.mention(USERS.alice, 'check the disk', { eventId: 'EvRETRY' });
    const redeliver = (retryNum: number) =>
      h.event(
        {
          type: 'app_mention',
          user: USERS.alice,
          text: `<@${FAKE_BOT.userId}> check the disk`,
          ts: first.ts,
          channel: CHANNEL,
        },
        { eventId: 'EvRETRY', retryNum },
      );
    const [retry, again] = await Promise.all([redeliver(1), redeliver(2)]);
    expect([first.status, retry.status, again.status]).toEqual([200, 200, 200]);
    await h.settled();
    expect(h.openai.requests).toHaveLength(1);
    expect(h.threadText(first.ts).match(/done once/g)).toHaveLength(1);
  });
});

describe('Slack events over HTTP while the store is unreachable', () => {
  let h: SlackHarness;
  afterEach(async () => h?.close());

  it('answers 503 before Bolt acks, so that Slack sends the event again, and runs the retry once', async () => {
    h = await SlackHarness.start({ mode: 'http' });
    h.openai.respond(() => text('answered after the outage'));
    const store = h.kernel.store;
    const ping = store.ping.bind(store);
    store.ping = async () => {
      throw new SystemError(ErrorCode.StoreUnavailable, 'Redis store could not answer a ping');
    };
    const refused = await h.mention(USERS.alice, 'check the disk', { eventId: 'EvOUTAGE' });
    expect(refused.status).toBe(503);
    expect(refused.body).toContain('The store cannot be reached');
    await h.settled();
    expect(h.openai.requests).toHaveLength(0);

    store.ping = ping;
    const retry = await h.event(
      {
        type: 'app_mention',
        user: USERS.alice,
        text: `<@${FAKE_BOT.userId}> check the disk`,
        ts: refused.ts,
        channel: CHANNEL,
      },
      { eventId: 'EvOUTAGE', retryNum: 1 },
    );
    expect(retry.status).toBe(200);
    await h.settled();
    expect(h.threadText(refused.ts).match(/answered after the outage/g)).toHaveLength(1);
  });
});
