// Messages the bot must not act on: its own, other bots' (unless allowed), edits and joins, echoed mentions.
import { afterEach, describe, expect, it } from 'vitest';
import { text } from '../fakes/openai-server.js';
import { FAKE_BOT } from '../fakes/slack/fake-slack-api.js';
import { CHANNEL, SlackHarness, USERS } from './slack-harness.js';

describe('Slack messages the bot ignores', () => {
  let h: SlackHarness;
  afterEach(async () => h?.close());

  it('ignores its own messages, other bots, edits, joins and un-mentioned top-level chatter', async () => {
    h = await SlackHarness.start({ mode: 'http' });
    h.openai.respond(() => text('an answer'));
    const root = await h.mention(USERS.alice, 'first');
    await h.settled();
    const requestsAfterFirst = h.openai.requests.length;
    const inThread = { channel: CHANNEL, thread_ts: root.ts };
    const ignored: Array<Record<string, unknown>> = [
      { type: 'message', ...inThread, user: FAKE_BOT.userId, text: 'my own reply' },
      {
        type: 'message',
        ...inThread,
        bot_id: FAKE_BOT.botId,
        user: FAKE_BOT.userId,
        text: 'own, with bot_id',
      },
      {
        type: 'message',
        ...inThread,
        subtype: 'bot_message',
        bot_id: FAKE_BOT.botId,
        text: 'own bot_message',
      },
      { type: 'message', ...inThread, subtype: 'bot_message', bot_id: 'B0OTHER', text: 'another bot' },
      { type: 'message', ...inThread, bot_id: 'B0OTHER', user: 'U0OTHERBOT', text: 'another bot as a user' },
      {
        type: 'app_mention',
        channel: CHANNEL,
        bot_id: 'B0OTHER',
        user: 'U0OTHERBOT',
        text: `<@${FAKE_BOT.userId}> loop`,
      },
      { type: 'message', ...inThread, subtype: 'message_changed', text: 'edited' },
      { type: 'message', ...inThread, subtype: 'channel_join', user: USERS.carol, text: 'joined' },
      { type: 'message', channel: CHANNEL, user: USERS.carol, text: 'chatter at the top level' },
      // The same mention arrives as a message event too; its app_mention twin is the one handled.
      { type: 'message', ...inThread, user: USERS.alice, text: `<@${FAKE_BOT.userId}> echo of a mention` },
    ];
    for (const event of ignored) await h.event({ ts: h.api.nextTs(), ...event });
    await h.settled();
    expect(h.openai.requests).toHaveLength(requestsAfterFirst);
    expect(h.threadText(root.ts).match(/an answer/g)).toHaveLength(1);
  });

  it('handles a bot the settings allow', async () => {
    h = await SlackHarness.start({ mode: 'http', allowedBotIds: ['B0FRIEND'] });
    h.openai.reply(text('answered the friendly bot'));
    const ts = h.api.nextTs();
    await h.event({
      type: 'app_mention',
      channel: CHANNEL,
      bot_id: 'B0FRIEND',
      user: 'U0FRIENDBOT',
      text: `<@${FAKE_BOT.userId}> check the disk`,
      ts,
    });
    await h.settled();
    expect(h.openai.requests).toHaveLength(1);
    expect(h.threadText(ts)).toContain('answered the friendly bot');
  });
});
