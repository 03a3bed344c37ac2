// Attack: a signed slash command or click whose response_url points somewhere other than Slack. Bolt's respond()
// would POST the bot's reply there; opsbot follows only Slack's hooks hosts, or SLACK_API_URL's origin.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { refusedResponseUrl, responseUrlPolicy } from '../../bot/slack/response-url.js';
import { slashCommand } from '../fakes/slack/slack-payload-builders.js';
import { FORM_CONTENT_TYPE, formBody, postSigned } from '../fakes/slack/slack-signing.js';
import { CHANNEL, SIGNING_SECRET, SlackHarness, USERS } from '../slack/slack-harness.js';

let h: SlackHarness | undefined;
let victim: Server | undefined;
afterEach(async () => {
  await h?.close();
  await new Promise<void>((resolve) => (victim ? victim.close(() => resolve()) : resolve()));
  h = undefined;
  victim = undefined;
});

/** A local service that records every request it gets: what a followed response_url would reach. */
async function startVictim(): Promise<{ url: string; hits: string[] }> {
  const hits: string[] = [];
  victim = createServer((request, response) => {
    hits.push(`${request.method} ${request.url}`);
    response.end('ok');
  });
  await new Promise<void>((resolve) => victim?.listen(0, '127.0.0.1', () => resolve()));
  return { url: `http://127.0.0.1:${(victim.address() as AddressInfo).port}/internal/admin`, hits };
}

describe('response_url (real Bolt HTTP receiver, fake Slack)', () => {
  it('attack: a signed /ops help whose response_url points at a local service does not reach it; the reply goes by chat.postEphemeral', async () => {
    const target = await startVictim();
    h = await SlackHarness.start({ mode: 'http' });
    const fields = slashCommand({
      command: '/ops',
      user: USERS.alice,
      text: 'help',
      channel: CHANNEL,
      channelName: 'ops',
      triggerId: 'trigger-evil',
      responseUrl: target.url,
    });
    const delivery = await postSigned(h.eventsUrl, formBody(fields), {
      secret: SIGNING_SECRET,
      contentType: FORM_CONTENT_TYPE,
    });
    expect(delivery.status).toBe(200);
    await h.settled();
    expect(target.hits).toEqual([]);
    expect(h.api.responses).toEqual([]);
    expect(h.api.ephemerals).toHaveLength(1);
    expect(h.api.ephemerals[0]).toMatchObject({ channel: CHANNEL, user: USERS.alice });
    expect(h.api.ephemerals[0]?.text).toMatch(/carries out ops tasks/);
  });

  it('a response_url on the SLACK_API_URL origin is still followed (the fake Slack here)', async () => {
    h = await SlackHarness.start({ mode: 'http' });
    await h.command(USERS.alice, 'help');
    await h.settled();
    expect(h.api.responses.length).toBeGreaterThan(0);
    expect(h.api.ephemerals).toEqual([]);
  });

  it("follows only https on Slack's hooks hosts, or the configured API origin", () => {
    const slack = responseUrlPolicy(undefined);
    expect(refusedResponseUrl('https://hooks.slack.com/commands/T1/2/abc', slack)).toBeUndefined();
    expect(refusedResponseUrl('https://hooks.slack-gov.com/actions/T1/2/abc', slack)).toBeUndefined();
    for (const url of [
      'http://hooks.slack.com/commands/T1/2/abc',
      'https://hooks.slack.com:8443/commands/x',
      'https://hooks.slack.com.evil.example/commands/x',
      'https://evil.example/hooks.slack.com',
      'http://127.0.0.1:9/',
      'http://169.254.169.254/latest/meta-data/',
      'not a url',
    ]) {
      expect(refusedResponseUrl(url, slack), url).toBeDefined();
    }
    const gateway = responseUrlPolicy('http://127.0.0.1:4000/api/');
    expect(refusedResponseUrl('http://127.0.0.1:4000/response/1', gateway)).toBeUndefined();
    expect(refusedResponseUrl('http://127.0.0.1:9/response/1', gateway)).toMatch(
      /127\.0\.0\.1:9 is not Slack's/,
    );
  });
});
