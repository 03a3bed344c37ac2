// Mentions, thread replies, questions and their answers, over signed HTTP and over Socket Mode.
import { afterEach, describe, expect, it } from 'vitest';
import { text, toolCalls } from '../fakes/openai-server.js';
import { renderSlackMessage } from '../fakes/slack/render-slack-message.js';
import { CHANNEL, SlackHarness, type SlackMode, USERS } from './slack-harness.js';

describe.each<SlackMode>(['http', 'socket'])('Slack mentions over %s', (mode) => {
  let h: SlackHarness;
  afterEach(async () => h?.close());

  it("runs a mentioned task and answers in the mention's thread, with a status that ends as done", async () => {
    h = await SlackHarness.start({ mode });
    h.openai.reply(
      toolCalls([{ name: 'check_http', arguments: { url: 'https://api.example.com' } }]),
      text('The **api** is up.'),
    );
    const mention = await h.mention(USERS.alice, 'is the api up?');
    expect(mention.status).toBe(200);
    if (mode === 'socket') {
      expect(h.socket!.acks).toHaveLength(1);
      expect(h.api.callsTo('apps.connections.open').map((call) => call.token)).toEqual(['xapp-test']);
    }
    await h.settled();

    expect(h.probe.count('check_http')).toBe(1);
    const user = h.openai.requests[0]!.body.messages!.find((message) => message.role === 'user');
    expect(user?.content).toBe('is the api up?');
    const posts = h.api.callsTo('chat.postMessage');
    expect(posts.length).toBeGreaterThan(0);
    for (const post of posts) expect(post.args.thread_ts).toBe(mention.ts);
    const shown = h.threadText(mention.ts);
    expect(shown).toContain('The *api* is up.');
    const status = h.api.thread(CHANNEL, mention.ts)[0]!;
    expect(status.history.length).toBeGreaterThan(0);
    expect(status.text).toMatch(/done/i);
    expect(status.text).toContain(':white_check_mark:');
  });

  it('asks a question in the thread and takes a thread reply as the answer', async () => {
    h = await SlackHarness.start({ mode });
    h.openai.reply(
      toolCalls([{ name: 'ask_user', arguments: { question: 'Which service?' } }]),
      toolCalls([{ name: 'read_logs', arguments: { service: 'worker' } }]),
      text('worker logs look clean'),
    );
    const mention = await h.mention(USERS.alice, 'check the logs');
    await h.settled();
    expect(h.threadText(mention.ts)).toContain('Which service?');
    expect(h.threadText(mention.ts)).toContain('Reply in this thread');

    await h.threadReply(USERS.alice, 'worker', mention.ts);
    await h.settled();
    expect(h.probe.calls.find((call) => call.tool === 'read_logs')?.args).toEqual({ service: 'worker' });
    expect(h.threadText(mention.ts)).toContain('worker logs look clean');
  });

  it('takes a choice button click as the answer', async () => {
    h = await SlackHarness.start({ mode });
    h.openai.reply(
      toolCalls([
        { name: 'ask_user', arguments: { question: 'Which environment?', choices: ['staging', 'prod'] } },
      ]),
      text('checked prod'),
    );
    const mention = await h.mention(USERS.alice, 'check the environment');
    await h.settled();
    const [question] = h.withButton(mention.ts, 'prod');
    expect(question).toBeDefined();
    expect(JSON.stringify(question!.blocks)).toContain(`"value":"answer:`);

    // A stale copy of the card, as a second client would still show it.
    const stale = structuredClone(question!);
    const click = await h.click(USERS.alice, question!, 'prod');
    expect(click.status).toBe(200);
    await h.settled();
    const answer = h.openai.requests[1]!.body.messages!.find((message) => message.role === 'tool');
    expect(JSON.parse(answer!.content!)).toMatchObject({ answer: 'prod' });
    expect(h.threadText(mention.ts)).toContain('checked prod');
    const answered = renderSlackMessage(h.api.message(CHANNEL, question!.ts)!);
    expect(answered.buttons).toEqual([]);
    expect(answered.text).toContain('Alice answered *prod*');

    await h.click(USERS.alice, stale, 'staging');
    await h.settled();
    expect(h.responsesText().at(-1)).toMatch(/no longer open/);
    expect(h.openai.requests).toHaveLength(2);
  });

  it('tells only the person, in the thread, when a mentioned command fails', async () => {
    h = await SlackHarness.start({ mode });
    const mention = await h.mention(USERS.alice, 'cancel run_doesnotexist');
    await h.settled();
    expect(h.api.ephemerals).toEqual([
      expect.objectContaining({ channel: CHANNEL, user: USERS.alice, thread_ts: mention.ts }),
    ]);
    expect(h.api.ephemerals[0]!.text).toContain('run_doesnotexist');
  });

  it('continues the conversation from a plain reply in a thread where it already worked', async () => {
    h = await SlackHarness.start({ mode });
    h.openai.reply(text('first answer'), text('second answer'));
    const mention = await h.mention(USERS.alice, 'first task');
    await h.settled();
    await h.threadReply(USERS.alice, 'and a follow-up', mention.ts);
    await h.settled();
    expect(h.openai.requests).toHaveLength(2);
    expect(h.threadText(mention.ts)).toContain('second answer');
  });

  it('neutralizes pings the model writes', async () => {
    h = await SlackHarness.start({ mode });
    h.openai.reply(
      text('Paging <!channel> <!here> @everyone <@U0123ABCD> <!subteam^S0123|oncall>: the api is down'),
    );
    const mention = await h.mention(USERS.alice, 'tell everyone');
    await h.settled();
    const shown = h.thread(mention.ts);
    expect(shown.flatMap((message) => message.pings)).toEqual([]);
    expect(shown.map((message) => message.text).join('\n')).toContain('the api is down');
    for (const post of h.api.callsTo('chat.postMessage')) expect(post.args.link_names).toBe('false');
  });

  it('treats a direct message like a mention', async () => {
    h = await SlackHarness.start({ mode });
    h.openai.reply(text('hello from a DM'));
    const ts = h.api.nextTs();
    await h.event({
      type: 'message',
      channel_type: 'im',
      channel: 'D0ALICE',
      user: USERS.alice,
      text: 'hi there',
      ts,
    });
    await h.settled();
    const reply = h.api.thread('D0ALICE', ts);
    expect(reply.map((message) => message.text).join('\n')).toContain('hello from a DM');
    expect(h.api.callsTo('conversations.info')).toHaveLength(0);
  });
});
