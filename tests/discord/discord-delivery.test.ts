// What the adapter sends, read off the fake Discord's REST log: never a ping, Discord's size limits kept (long
// output split, very long output attached as a file with a preview), and a 429 waited out with one delivery.
import { afterEach, describe, expect, it } from 'vitest';
import { text, toolCalls } from '../fakes/openai-server.js';
import { ALICE, CHANNEL, type Rig, startRig, stopRigs } from './discord-adapter-rig.js';
import { renderDiscordMessage } from './render-discord-message.js';

afterEach(stopRigs);

const ROLE_PING = '<@&123456789012345678>';

interface SentBody {
  content?: string;
  embeds?: Array<{ title?: string; description?: string; fields?: { name: string; value: string }[] }>;
  allowed_mentions?: unknown;
  attachments?: Array<{ filename: string; content: string }>;
}

/** Asks in the channel with a mention and waits for the run to finish; returns the thread's id. */
async function ask(rig: Rig, content: string): Promise<string> {
  const asked = rig.fake.sendMessage({ channelId: CHANNEL, author: ALICE, content, mentionBot: true });
  await rig.until('the run to start', () => rig.model.requests.length > 0);
  await rig.settled();
  return asked.id;
}

function postsTo(rig: Rig, channelId: string) {
  return rig.fake.api.callsTo('POST', new RegExp(`^/channels/${channelId}/messages$`));
}

function embedChars(body: SentBody): number {
  return (body.embeds ?? []).reduce(
    (sum, embed) =>
      sum +
      (embed.title?.length ?? 0) +
      (embed.description?.length ?? 0) +
      (embed.fields ?? []).reduce((fields, field) => fields + field.name.length + field.value.length, 0),
    0,
  );
}

describe('what the Discord adapter sends', () => {
  it('sends every message, post or edit, bot token or webhook, with allowed_mentions parse: []', async () => {
    const rig = await startRig();
    rig.model.reply(
      toolCalls([{ name: 'read_logs', arguments: { service: `@everyone ${ROLE_PING}` } }]),
      text(`Paging @everyone and ${ROLE_PING} and <@${ALICE.id}>: the api is down.`),
      text(`@here ${ROLE_PING} all good`),
    );
    const thread = await ask(rig, 'what do the logs say?');
    rig.fake.slashCommand({
      channelId: CHANNEL,
      user: ALICE,
      options: { task: `tell @everyone ${ROLE_PING}` },
    });
    await rig.until('the second run', () => rig.model.requests.length > 2);
    await rig.settled();

    const shown = rig.fake.api.allMessages
      .filter((message) => message.author.bot)
      .map((message) => renderDiscordMessage(message).text)
      .join('\n');
    // The model's and the person's text arrive, defused twice: a word joiner breaks each mention, and Discord is
    // told to parse none.
    expect(shown).toContain('Paging @\u2060everyone and <@\u2060&123456789012345678>');
    expect(shown).toContain('asked: tell @\u2060everyone');
    expect(shown).not.toMatch(/@everyone|@here|<@&\d+>/);
    expect(rig.fake.messages(thread).length).toBeGreaterThan(1);
    const writes = rig.messageWrites();
    expect(writes.map((call) => call.method)).toEqual(expect.arrayContaining(['POST', 'PATCH']));
    expect(writes.some((call) => call.route.startsWith('/webhooks/'))).toBe(true);
    for (const call of writes) expect((call.body as SentBody).allowed_mentions).toEqual({ parse: [] });
  });

  it('splits a 5,000-character answer within Discord’s limits, losing nothing', async () => {
    const rig = await startRig();
    const lines = Array.from(
      { length: 110 },
      (_, index) => `line ${String(index).padStart(3, '0')} ${'x'.repeat(40)}`,
    );
    const answer = lines.join('\n');
    expect(answer.length).toBeGreaterThanOrEqual(5000);
    rig.model.reply(text(answer));
    const thread = await ask(rig, 'print the report');

    const bodies = postsTo(rig, thread).map((call) => call.body as SentBody);
    // More than one embed's description holds (4,096), so it was split.
    expect(bodies.flatMap((body) => body.embeds ?? []).length).toBeGreaterThan(1);
    for (const body of bodies) {
      expect(body.content?.length ?? 0).toBeLessThanOrEqual(2000);
      expect(body.embeds?.length ?? 0).toBeLessThanOrEqual(10);
      for (const embed of body.embeds ?? []) expect(embed.description?.length ?? 0).toBeLessThanOrEqual(4096);
      expect(embedChars(body)).toBeLessThanOrEqual(6000);
      expect(body.attachments ?? []).toEqual([]);
    }
    const shown = rig.fake
      .messages(thread)
      .map((message) => renderDiscordMessage(message).text)
      .join('\n');
    for (const line of lines) expect(shown).toContain(line);
  });

  it('attaches a 20,000-character answer as a file, with a preview in the message', async () => {
    const rig = await startRig();
    const lines = Array.from(
      { length: 400 },
      (_, index) => `row ${String(index).padStart(3, '0')} ${'y'.repeat(45)}`,
    );
    const answer = lines.join('\n');
    expect(answer.length).toBeGreaterThanOrEqual(20_000);
    rig.model.reply(text(answer));
    const thread = await ask(rig, 'dump everything');

    const uploadsOf = () =>
      postsTo(rig, thread).filter((call) =>
        String(call.headers['content-type']).startsWith('multipart/form-data'),
      );
    // The upload is one more REST request after the run settles; on a busy machine it can land a little later.
    await rig.until('the answer to be uploaded as a file', () => uploadsOf().length > 0);
    const uploads = uploadsOf();
    expect(uploads).toHaveLength(1);
    const body = uploads[0]!.body as SentBody;
    expect(body.attachments).toEqual([expect.objectContaining({ filename: 'output.txt', content: answer })]);
    expect(body.allowed_mentions).toEqual({ parse: [] });
    const preview = (body.embeds ?? []).map((embed) => embed.description ?? '').join('\n');
    expect(preview).toContain(lines[0]);
    expect(preview.length).toBeLessThan(4096);
    expect(embedChars(body)).toBeLessThanOrEqual(6000);
  });

  it('waits out a 429 on a post (Retry-After) and delivers the message once', async () => {
    const rig = await startRig();
    rig.model.reply(text('Deployed fine.'));
    rig.fake.api.rateLimitNext(/^POST \/channels\/\d+\/messages$/, 0.05);
    const thread = await ask(rig, 'how did the deploy go?');
    await rig.until('the answer', () =>
      rig.fake
        .messages(thread)
        .some((message) => renderDiscordMessage(message).text.includes('Deployed fine.')),
    );

    const posts = postsTo(rig, thread);
    expect(posts[0]!.status).toBe(429);
    expect(posts.slice(1).every((call) => call.status === 200)).toBe(true);
    const answers = rig.fake
      .messages(thread)
      .filter((message) => renderDiscordMessage(message).text.includes('Deployed fine.'));
    expect(answers).toHaveLength(1);
    // The refused post was the first one, made again after the wait: as many messages as successful posts.
    expect(rig.fake.messages(thread)).toHaveLength(posts.length - 1);
  });
});
