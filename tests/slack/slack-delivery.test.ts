// Posting under Slack's rate limits: Retry-After honoured, late interactive posts dropped, channels paced.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { OutboundMessage } from '../../agent/chat-port.js';
import { ManualClock } from '../../agent/clock.js';
import { silentLogger } from '../../agent/logger.js';
import { ChannelPacer } from '../../bot/slack/channel-pacer.js';
import { SlackChatPort } from '../../bot/slack/slack-chat-port.js';
import { SlackDelivery, SlackDeliveryError } from '../../bot/slack/slack-delivery.js';
import { createSlackWebClient } from '../../bot/slack/slack-web-client.js';
import { type FakeSlackApi, startFakeSlackApi } from '../fakes/slack/fake-slack-api.js';

const channel = { platform: 'slack' as const, channelId: 'C0OPS', threadId: '1767225600.000001' };

describe('Slack delivery', () => {
  let api: FakeSlackApi;
  let clock: ManualClock;
  let port: SlackChatPort;
  beforeEach(async () => {
    api = await startFakeSlackApi();
    clock = new ManualClock(Date.UTC(2026, 0, 1, 12, 0));
    const client = createSlackWebClient({ token: 'xoxb-test', apiUrl: api.apiUrl, logger: silentLogger });
    port = new SlackChatPort({
      delivery: new SlackDelivery({ client, clock, logger: silentLogger }),
      clock,
      logger: silentLogger,
    });
  });
  afterEach(async () => api.close());

  it('waits out a 429 from chat.postMessage for its Retry-After, then posts once', async () => {
    api.rateLimitOnce('chat.postMessage', 1);
    const started = performance.now();
    const ref = await port.post(channel, { kind: 'text', text: 'after the rate limit' });
    const elapsed = performance.now() - started;
    expect(elapsed).toBeGreaterThanOrEqual(950);
    expect(elapsed).toBeLessThan(3_000);
    expect(api.callsTo('chat.postMessage')).toHaveLength(2);
    expect(api.messages).toHaveLength(1);
    expect(api.message('C0OPS', ref.messageId)?.text).toContain('after the rate limit');
  });

  it('drops an approval card rather than deliver it after its approval expired', async () => {
    const card: OutboundMessage = {
      kind: 'approval',
      runId: 'run_1',
      approvalId: 'apv_1',
      requester: 'Alice',
      tool: 'restart_service',
      argumentsJson: '{}',
      reason: '',
      approvers: ['admin'],
      expiresAt: clock.now() + 60_000,
    };
    api.rateLimitOnce('chat.postMessage', 120);
    const started = performance.now();
    await expect(port.post(channel, card)).rejects.toBeInstanceOf(SlackDeliveryError);
    expect(performance.now() - started).toBeLessThan(500);
    expect(api.messages).toHaveLength(0);

    await expect(port.post(channel, { ...card, expiresAt: clock.now() + 1_000 })).rejects.toThrow(/expires/);
    expect(api.callsTo('chat.postMessage')).toHaveLength(1);
  });

  it('uploads very long output as a file in the thread, after a preview', async () => {
    const text = Array.from({ length: 1_500 }, (_, index) => `log line ${index}`).join('\n');
    const ref = await port.post(channel, { kind: 'result', runId: 'run_1', ok: true, text });
    expect(api.message('C0OPS', ref.messageId)?.thread_ts).toBe(channel.threadId);
    expect(api.files).toHaveLength(1);
    expect(api.files[0]).toMatchObject({
      completed: true,
      channel: 'C0OPS',
      thread_ts: channel.threadId,
      content: text,
    });
    expect(api.callsTo('files.getUploadURLExternal')).toHaveLength(1);
    expect(api.callsTo('files.completeUploadExternal')).toHaveLength(1);
  });

  it('records a platform error instead of retrying it', async () => {
    api.failOnce('chat.postMessage', 'invalid_blocks');
    await expect(port.post(channel, { kind: 'text', text: 'nowhere' })).rejects.toThrow(/invalid_blocks/);
    expect(api.callsTo('chat.postMessage')).toHaveLength(1);
    api.failOnce('chat.postMessage', 'not_in_channel');
    await expect(port.post(channel, { kind: 'text', text: 'nowhere' })).rejects.toThrow(/\/invite @opsbot/);
  });
});

describe('ChannelPacer', () => {
  it('spaces posts to one channel a second apart and leaves other channels alone', async () => {
    let now = 0;
    const slept: number[] = [];
    const pacer = new ChannelPacer({
      intervalMs: 1_000,
      now: () => now,
      sleep: async (ms) => {
        slept.push(ms);
      },
    });
    await Promise.all([pacer.wait('C1'), pacer.wait('C1'), pacer.wait('C1'), pacer.wait('C2')]);
    expect(slept).toEqual([1_000, 2_000]);
    now = 5_000;
    await pacer.wait('C1');
    expect(slept).toEqual([1_000, 2_000]);
  });
});
