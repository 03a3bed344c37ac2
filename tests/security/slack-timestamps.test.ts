// Attacks on Slack request signing: a correctly signed request whose timestamp is far from now, either way.
import { afterEach, describe, expect, it } from 'vitest';
import { text } from '../fakes/openai-server.js';
import { FAKE_BOT } from '../fakes/slack/fake-slack-api.js';
import { postSigned } from '../fakes/slack/slack-signing.js';
import { CHANNEL, SIGNING_SECRET, SlackHarness, USERS } from '../slack/slack-harness.js';

function mentionBody(eventId: string, ts: string): string {
  return JSON.stringify({
    type: 'event_callback',
    team_id: FAKE_BOT.teamId,
    api_app_id: 'A0FAKE',
    event_id: eventId,
    event_time: Math.floor(Date.now() / 1000),
    event: {
      type: 'app_mention',
      user: USERS.alice,
      text: `<@${FAKE_BOT.userId}> check`,
      ts,
      channel: CHANNEL,
    },
  });
}

const nowSeconds = () => Math.floor(Date.now() / 1000);

describe('Slack request timestamps (real Bolt HTTP receiver, fake Slack)', () => {
  let h: SlackHarness;
  afterEach(async () => h?.close());

  it('attack: a correctly signed request stamped 6 minutes in the future (replayable later) gets 401 and runs nothing', async () => {
    h = await SlackHarness.start({ mode: 'http' });
    h.openai.respond(() => text('this must not run'));
    const ts = h.api.nextTs();
    const future = await postSigned(h.eventsUrl, mentionBody('EvFUTURE', ts), {
      secret: SIGNING_SECRET,
      timestamp: nowSeconds() + 6 * 60,
    });
    expect(future.status).toBe(401);
    expect(future.body).toBe('');
    const farFuture = await postSigned(h.eventsUrl, mentionBody('EvFARFUTURE', h.api.nextTs()), {
      secret: SIGNING_SECRET,
      timestamp: nowSeconds() + 365 * 86_400,
    });
    expect(farFuture.status).toBe(401);
    const past = await postSigned(h.eventsUrl, mentionBody('EvPAST', h.api.nextTs()), {
      secret: SIGNING_SECRET,
      timestamp: nowSeconds() - 6 * 60,
    });
    expect(past.status).toBe(401);
    const malformed = await postSigned(h.eventsUrl, mentionBody('EvMALFORMED', h.api.nextTs()), {
      secret: SIGNING_SECRET,
      headers: { 'x-slack-request-timestamp': '1e12' },
    });
    expect(malformed.status).toBe(401);
    await h.settled();
    expect(h.openai.requests).toHaveLength(0);
    expect(h.api.calls.filter((call) => call.method !== 'auth.test')).toHaveLength(0);
  });

  it('attack guard must not refuse honest clock skew: a signed request 4 minutes in the future is accepted and runs once', async () => {
    h = await SlackHarness.start({ mode: 'http' });
    h.openai.reply(text('skew is fine'));
    const ts = h.api.nextTs();
    const result = await postSigned(h.eventsUrl, mentionBody('EvSKEW', ts), {
      secret: SIGNING_SECRET,
      timestamp: nowSeconds() + 4 * 60,
    });
    expect(result.status).toBe(200);
    await h.settled();
    expect(h.threadText(ts)).toContain('skew is fine');
  });
});
