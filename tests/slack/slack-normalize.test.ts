// Normalizing Slack payloads: which messages count, the conversation and thread, event ids, button clicks.
import { describe, expect, it } from 'vitest';
import {
  normalizeBlockAction,
  normalizeMessageEvent,
  withoutMention,
} from '../../bot/slack/slack-normalize.js';

const self = { botUserId: 'UBOT', botId: 'BBOT', allowedBotIds: new Set<string>() };
const envelope = (event: Record<string, unknown>) => ({
  event_id: 'Ev1',
  event: { channel: 'C1', ts: '10.1', text: '', ...event },
});

describe('normalizeMessageEvent', () => {
  it("uses the mention's ts as the thread, or the thread it was in, and strips the bot's mention", () => {
    const top = normalizeMessageEvent(
      envelope({ type: 'app_mention', user: 'U1', text: '<@UBOT> check  the disk' }),
      self,
    );
    expect(top).toEqual({
      ok: true,
      value: {
        eventId: 'Ev1',
        userId: 'U1',
        conversation: { platform: 'slack', channelId: 'C1', threadId: '10.1' },
        text: 'check the disk',
        mentioned: true,
        direct: false,
      },
    });
    const inThread = normalizeMessageEvent(
      envelope({ type: 'app_mention', user: 'U1', thread_ts: '9.0', text: 'hi <@UBOT|opsbot>' }),
      self,
    );
    expect(inThread.ok && inThread.value.conversation.threadId).toBe('9.0');
    expect(inThread.ok && inThread.value.text).toBe('hi');
  });

  it('ignores its own messages even from an allowed bot id, and other bots unless allowed', () => {
    const allowing = { ...self, allowedBotIds: new Set(['BBOT', 'BFRIEND']) };
    expect(normalizeMessageEvent(envelope({ type: 'app_mention', user: 'UBOT' }), allowing).ok).toBe(false);
    expect(
      normalizeMessageEvent(envelope({ type: 'app_mention', bot_id: 'BBOT', user: 'UX' }), allowing).ok,
    ).toBe(false);
    expect(
      normalizeMessageEvent(envelope({ type: 'app_mention', bot_id: 'BOTHER', user: 'UX' }), self).ok,
    ).toBe(false);
    expect(
      normalizeMessageEvent(envelope({ type: 'app_mention', bot_id: 'BFRIEND', user: 'UX' }), allowing).ok,
    ).toBe(true);
  });

  it('takes DMs and thread replies, and leaves channel mentions to app_mention', () => {
    expect(
      normalizeMessageEvent(envelope({ type: 'message', channel_type: 'im', user: 'U1', text: 'hi' }), self),
    ).toMatchObject({
      ok: true,
      value: { direct: true, mentioned: false },
    });
    expect(
      normalizeMessageEvent(envelope({ type: 'message', user: 'U1', thread_ts: '9.0', text: 'more' }), self)
        .ok,
    ).toBe(true);
    expect(normalizeMessageEvent(envelope({ type: 'message', user: 'U1', text: 'top level' }), self).ok).toBe(
      false,
    );
    expect(
      normalizeMessageEvent(
        envelope({ type: 'message', user: 'U1', thread_ts: '9.0', text: '<@UBOT> x' }),
        self,
      ).ok,
    ).toBe(false);
    expect(
      normalizeMessageEvent(envelope({ type: 'message', subtype: 'message_changed', thread_ts: '9.0' }), self)
        .ok,
    ).toBe(false);
    expect(normalizeMessageEvent({ event: {} }, self).ok).toBe(false);
  });

  it('removes only our own mention', () => {
    expect(withoutMention('<@UBOT> ask <@UOTHER>', 'UBOT')).toBe('ask <@UOTHER>');
  });
});

describe('button clicks', () => {
  it('keys a click by click time, message and person, in the thread of the message', () => {
    const click = normalizeBlockAction({
      type: 'block_actions',
      user: { id: 'U1' },
      channel: { id: 'C1', name: 'ops' },
      message: { ts: '20.0', thread_ts: '10.0' },
      actions: [{ action_id: 'opsbot_approve', value: 'approve:apv_1', action_ts: '30.5' }],
    });
    expect(click).toEqual({
      ok: true,
      value: {
        eventId: 'action:30.5:20.0:U1',
        userId: 'U1',
        conversation: { platform: 'slack', channelId: 'C1', threadId: '10.0', channelName: 'ops' },
        messageTs: '20.0',
        intent: { action: 'approve', approvalId: 'apv_1' },
      },
    });
  });
  // Which button values are accepted is the codec's: tests/chat/button-codec.test.ts.
});
