// Attacks on Slack request signing through the real Bolt HTTP receiver and the fake Slack: forged, missing and
// misplaced signatures, and a captured request replayed. Future timestamps are in slack-timestamps.test.ts.
import { afterEach, describe, expect, it } from 'vitest';
import { text } from '../fakes/openai-server.js';
import { FAKE_BOT } from '../fakes/slack/fake-slack-api.js';
import { FORM_CONTENT_TYPE, formBody, postSigned, slackSignature } from '../fakes/slack/slack-signing.js';
import { CHANNEL, SIGNING_SECRET, SlackHarness, USERS } from '../slack/slack-harness.js';

function mentionBody(eventId: string, ts: string, words = 'check'): string {
  return JSON.stringify({
    type: 'event_callback',
    team_id: FAKE_BOT.teamId,
    api_app_id: 'A0FAKE',
    event_id: eventId,
    event_time: Math.floor(Date.now() / 1000),
    event: {
      type: 'app_mention',
      user: USERS.alice,
      text: `<@${FAKE_BOT.userId}> ${words}`,
      ts,
      channel: CHANNEL,
    },
  });
}

const nowSeconds = () => Math.floor(Date.now() / 1000);

let h: SlackHarness;
afterEach(async () => h?.close());

async function expectNothingRan(): Promise<void> {
  await h.settled();
  expect(h.openai.requests).toHaveLength(0);
  expect(h.api.calls.filter((call) => call.method !== 'auth.test')).toHaveLength(0);
  expect(h.probe.calls).toEqual([]);
}

describe('Slack request signatures (real Bolt HTTP receiver, fake Slack)', () => {
  it('attack: a signature made with the wrong secret gets 401 and runs nothing', async () => {
    h = await SlackHarness.start({ mode: 'http' });
    h.openai.respond(() => text('this must not run'));
    const result = await postSigned(h.eventsUrl, mentionBody('EvWRONG', h.api.nextTs()), {
      secret: 'guessed',
    });
    expect(result.status).toBe(401);
    expect(result.body).toBe('');
    await expectNothingRan();
  });

  it('attack: missing signature, missing timestamp, both missing, or an empty or malformed signature get 401', async () => {
    h = await SlackHarness.start({ mode: 'http' });
    h.openai.respond(() => text('this must not run'));
    const body = mentionBody('EvMISSING', h.api.nextTs());
    const unsigned = await postSigned(h.eventsUrl, body, { secret: SIGNING_SECRET, unsigned: true });
    const noTimestamp = await fetch(h.eventsUrl, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-slack-signature': slackSignature(SIGNING_SECRET, nowSeconds(), body),
      },
      body,
    });
    const bare = await fetch(h.eventsUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
    });
    const signature = slackSignature(SIGNING_SECRET, nowSeconds(), body);
    const malformed = [
      '',
      'v0=',
      signature.replace('v0=', 'v1='),
      signature.slice(0, -2),
      signature.toUpperCase(),
      `${signature}00`,
    ];
    const results = [unsigned.status, noTimestamp.status, bare.status];
    for (const forged of malformed)
      results.push(
        (await postSigned(h.eventsUrl, body, { secret: SIGNING_SECRET, signature: forged })).status,
      );
    expect(results).toEqual(results.map(() => 401));
    await expectNothingRan();
  });

  it('attack: a valid signature over a different body (changed text, added field, other event) gets 401', async () => {
    h = await SlackHarness.start({ mode: 'http' });
    h.openai.respond(() => text('this must not run'));
    const now = nowSeconds();
    const signedBody = mentionBody('EvSIGNED', h.api.nextTs(), 'check');
    const signature = slackSignature(SIGNING_SECRET, now, signedBody);
    const sent = [
      signedBody.replace('check', 'restart prod-db'),
      `${signedBody} `,
      signedBody.replace('"type":"event_callback"', '"type":"event_callback","x":1'),
      mentionBody('EvOTHER', h.api.nextTs(), 'check'),
    ];
    for (const body of sent) {
      const result = await postSigned(h.eventsUrl, body, {
        secret: SIGNING_SECRET,
        signature,
        timestamp: now,
      });
      expect(result.status).toBe(401);
    }
    // The signature binds the timestamp too: the same body and signature under another timestamp fail.
    const shifted = await postSigned(h.eventsUrl, signedBody, {
      secret: SIGNING_SECRET,
      signature,
      timestamp: now - 1,
    });
    expect(shifted.status).toBe(401);
    await expectNothingRan();
  });

  it('attack: a captured request replayed more than 5 minutes later gets 401; replayed at once it runs once', async () => {
    h = await SlackHarness.start({ mode: 'http' });
    h.openai.reply(text('ran once'));
    const ts = h.api.nextTs();
    const body = mentionBody('EvCAPTURED', ts);
    // As captured when sent 301 s and 1 hour ago: correctly signed, with the timestamp of then.
    for (const age of [301, 3_600]) {
      const then = nowSeconds() - age;
      const stale = await postSigned(h.eventsUrl, body, {
        secret: SIGNING_SECRET,
        timestamp: then,
        signature: slackSignature(SIGNING_SECRET, then, body),
      });
      expect(stale.status).toBe(401);
    }
    await expectNothingRan();
    // Within the window the same signed bytes are accepted, and the event id makes the copy a no-op.
    const now = nowSeconds();
    const signature = slackSignature(SIGNING_SECRET, now, body);
    const first = await postSigned(h.eventsUrl, body, { secret: SIGNING_SECRET, timestamp: now, signature });
    const copy = await postSigned(h.eventsUrl, body, { secret: SIGNING_SECRET, timestamp: now, signature });
    expect([first.status, copy.status]).toEqual([200, 200]);
    await h.settled();
    expect(h.openai.requests).toHaveLength(1);
    expect(h.threadText(ts).match(/ran once/g)).toHaveLength(1);
  });

  it('attack: a forged slash command and a forged button click get 401 and run nothing', async () => {
    h = await SlackHarness.start({ mode: 'http' });
    h.openai.respond(() => text('this must not run'));
    const command = formBody({
      command: '/ops',
      text: 'restart the api',
      user_id: USERS.alice,
      channel_id: CHANNEL,
      team_id: FAKE_BOT.teamId,
      trigger_id: 't-1',
      response_url: h.api.responseUrl('t-1'),
    });
    const click = formBody({
      payload: JSON.stringify({
        type: 'block_actions',
        user: { id: USERS.bob },
        actions: [{ value: 'approve:apv_AAAAAAAAAAAAAAAAAAAAAA' }],
      }),
    });
    for (const body of [command, click]) {
      const result = await postSigned(h.eventsUrl, body, {
        secret: 'guessed',
        contentType: FORM_CONTENT_TYPE,
      });
      expect(result.status).toBe(401);
    }
    await expectNothingRan();
    expect(h.api.responses).toEqual([]);
  });
});
