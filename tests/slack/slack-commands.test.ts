// The /ops slash command: acked at once while the model is slow, tasks in a new thread, private answers.
import { afterEach, describe, expect, it } from 'vitest';
import { text } from '../fakes/openai-server.js';
import { CHANNEL, SlackHarness, type SlackMode, USERS } from './slack-harness.js';

describe.each<SlackMode>(['http', 'socket'])('Slack /ops over %s', (mode) => {
  let h: SlackHarness;
  afterEach(async () => h?.close());

  it('acks a task in under a second while the model is slow, then posts it and works in its thread', async () => {
    h = await SlackHarness.start({ mode });
    h.openai.reply(text('All good.', { delayMs: 1_500 }));
    const ack = await h.command(USERS.alice, 'check the api');
    expect(ack.status).toBe(200);
    expect(ack.ms).toBeLessThan(1_000);

    await h.settled();
    const [root] = h.api.topLevel(CHANNEL);
    expect(root?.text).toContain('Alice asked: check the api');
    const replies = h.api.thread(CHANNEL, root!.ts).filter((message) => message.ts !== root!.ts);
    expect(replies.map((message) => message.text).join('\n')).toContain('All good.');
    expect(h.openai.requests[0]!.body.messages!.some((message) => message.content === 'check the api')).toBe(
      true,
    );
  });

  it('tells the person to invite the bot when it cannot post the task in the channel', async () => {
    h = await SlackHarness.start({ mode });
    h.api.failOnce('chat.postMessage', 'not_in_channel');
    await h.command(USERS.alice, 'check the api');
    await h.settled();
    expect(h.responsesText()).toEqual([expect.stringContaining('/invite @opsbot')]);
    expect(h.openai.requests).toHaveLength(0);
  });

  it('answers help, whoami and status privately, with roles from user groups', async () => {
    h = await SlackHarness.start({ mode });
    await h.command(USERS.alice, 'help');
    await h.command(USERS.bob, 'whoami');
    await h.command(USERS.carol, 'status');
    await h.settled();
    const [help, whoami, status] = h.api.responses;
    expect(help?.body).toMatchObject({ response_type: 'ephemeral' });
    expect(String(help?.body.text)).toContain('/ops');
    expect(String(help?.body.text)).toContain('check_http');
    expect(String(whoami?.body.text)).toContain('admin');
    expect(String(whoami?.body.text)).toContain('Bob Builder');
    expect(String(status?.body.text)).toMatch(/no active runs/i);
    expect(h.api.callsTo('chat.postMessage')).toHaveLength(0);
    expect(h.openai.requests).toHaveLength(0);
  });
});
