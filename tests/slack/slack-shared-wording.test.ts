// Text everyone in a thread reads names the person; only a reply to one person (ephemeral) says "you".
import { afterEach, describe, expect, it } from 'vitest';
import { toolCalls } from '../fakes/openai-server.js';
import { CHANNEL, SlackHarness, type SlackMode, USERS } from './slack-harness.js';

describe.each<SlackMode>(['http', 'socket'])('Slack shared and private wording over %s', (mode) => {
  let h: SlackHarness;
  afterEach(async () => h?.close());

  it('shows everyone "Waiting for Alice\'s answer", and tells only the person who acted what concerns them', async () => {
    h = await SlackHarness.start({ mode });
    h.openai.reply(
      toolCalls([
        { name: 'ask_user', arguments: { question: 'Which service?', choices: ['api', 'worker'] } },
      ]),
    );
    const mention = await h.mention(USERS.alice, 'check the logs');
    await h.settled();

    // The status line is the first bot message in the thread, shown to everyone there.
    const status = h.api.thread(CHANNEL, mention.ts)[0]!;
    expect(status.text).toContain("Waiting for Alice's answer");
    expect(h.threadText(mention.ts)).not.toMatch(/\byour?\b/i);

    // Carol clicks a choice on Alice's question: only Carol is told why it did not count.
    const [question] = h.withButton(mention.ts, 'api');
    await h.click(USERS.carol, question!, 'api');
    // Carol asks what she may do, in the thread: the answer is for her alone.
    await h.mention(USERS.carol, 'permissions', { threadTs: mention.ts });
    await h.settled();
    expect(h.responsesText()).toEqual([
      expect.stringMatching(/^Only Alice \(who asked\) or an admin can answer/),
    ]);
    const privately = h.api.ephemerals.filter((ephemeral) => ephemeral.user === USERS.carol);
    expect(privately.map((ephemeral) => ephemeral.text)).toEqual([
      expect.stringContaining('Tools you can use here'),
    ]);
    expect(privately[0]!.thread_ts).toBe(mention.ts);
    expect(h.threadText(mention.ts)).not.toContain('Tools you can use here');
    expect(h.api.thread(CHANNEL, mention.ts)[0]!.text).toContain("Waiting for Alice's answer");
  });
});
