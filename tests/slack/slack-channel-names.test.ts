// Channel names for `#name` rules: read through the Web API, cached on an injected clock, failures kept briefly.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../agent/clock.js';
import { silentLogger } from '../../agent/logger.js';
import { SlackChannelNames } from '../../bot/slack/slack-channel-names.js';
import { createSlackWebClient } from '../../bot/slack/slack-web-client.js';
import { type FakeSlackApi, startFakeSlackApi } from '../fakes/slack/fake-slack-api.js';

describe('SlackChannelNames', () => {
  let api: FakeSlackApi;
  let clock: ManualClock;
  let names: SlackChannelNames;
  beforeEach(async () => {
    api = await startFakeSlackApi();
    api.channels.set('C0OPS', 'ops');
    clock = new ManualClock();
    const client = createSlackWebClient({ token: 'xoxb-test', apiUrl: api.apiUrl, logger: silentLogger });
    names = new SlackChannelNames(client, clock, silentLogger, 60_000);
  });
  afterEach(async () => api.close());

  it('reads a name once per TTL, and never for a DM', async () => {
    expect(await names.name('C0OPS')).toBe('ops');
    expect(await names.name('C0OPS')).toBe('ops');
    expect(await names.name('D0DIRECT')).toBeUndefined();
    expect(api.callsTo('conversations.info')).toHaveLength(1);
    clock.advance(60_001);
    expect(await names.name('C0OPS')).toBe('ops');
    expect(api.callsTo('conversations.info')).toHaveLength(2);
  });

  it('gives no name when it cannot be read, and asks again only after 30 s', async () => {
    api.failOnce('conversations.info', 'missing_scope');
    expect(await names.name('C0OPS')).toBeUndefined();
    expect(await names.name('C0OPS')).toBeUndefined();
    expect(api.callsTo('conversations.info')).toHaveLength(1);
    clock.advance(30_001);
    expect(await names.name('C0OPS')).toBe('ops');
    expect(api.callsTo('conversations.info')).toHaveLength(2);
  });
});
