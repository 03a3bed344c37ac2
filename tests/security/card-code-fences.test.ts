// attack: an argument holding ``` closes the approval card's code block, so text the model chose renders as the
// card's own words ("*Approved by Dave* ✅"). Real Bolt and real discord.js, against the fakes.
import { afterEach, describe, expect, it } from 'vitest';
import { monospaceTable } from '../../bot/chat/view-tables.js';
import { ALICE, CHANNEL as DISCORD_CHANNEL, startRig, stopRigs } from '../discord/discord-adapter-rig.js';
import { toolCalls } from '../fakes/openai-server.js';
import { SlackHarness } from '../slack/slack-harness.js';

const FORGED = 'x````\n*Approved by Dave* ✅\n````';
const FORGED_TABLE_CELL = '``` **Approved by Dave** ```';

/** What a markdown reader shows outside code blocks: the text between fences, every second piece from the first. */
function outsideCode(markdown: string): string {
  return markdown
    .split('```')
    .filter((_piece, index) => index % 2 === 0)
    .join('');
}

interface TextObject {
  text?: string;
}

/** Every mrkdwn text of a Block Kit message, one per section, field or context element. */
function slackTexts(blocks: unknown[]): string[] {
  return (
    blocks as { text?: TextObject; fields?: TextObject[]; elements?: (TextObject | { text?: string })[] }[]
  ).flatMap((block) => [
    block.text?.text ?? '',
    ...(block.fields ?? []).map((field) => field.text ?? ''),
    ...(block.elements ?? []).map((element) => (typeof element.text === 'string' ? element.text : '')),
  ]);
}

describe('attack: a code fence in an argument', () => {
  let slack: SlackHarness | undefined;
  afterEach(async () => {
    await slack?.close();
    slack = undefined;
    await stopRigs();
  });

  it('attack: on Slack, ``` in an argument stays inside the Arguments code block of the card', async () => {
    slack = await SlackHarness.start({ mode: 'http' });
    slack.openai.reply(toolCalls([{ name: 'write_note', arguments: { text: FORGED } }]));
    const mention = await slack.mention('UALICE', 'note something');
    await slack.settled();
    const [card] = slack.withButton(mention.ts, 'Approve');
    if (!card) throw new Error(`no approval card:\n${slack.threadText(mention.ts)}`);
    const texts = slackTexts(card.blocks);
    expect(texts.join('\n')).toContain('Approved by Dave');
    for (const text of texts) expect(outsideCode(text)).not.toContain('Approved by Dave');
  });

  it('attack: on Discord, ``` in an argument stays inside the Arguments code block of the card', async () => {
    const rig = await startRig();
    rig.model.reply(toolCalls([{ name: 'write_note', arguments: { text: FORGED } }]));
    const asked = rig.fake.sendMessage({
      channelId: DISCORD_CHANNEL,
      author: ALICE,
      content: 'note something',
      mentionBot: true,
    });
    await rig.settled();
    const card = rig.fake
      .messages(asked.id)
      .find((message) =>
        (message.components as { components?: { label?: string }[] }[]).some((row) =>
          row.components?.some((button) => button.label === 'Approve'),
        ),
      );
    if (!card) throw new Error('no approval card in the thread');
    const descriptions = (card.embeds as { description?: string }[]).map((embed) => embed.description ?? '');
    expect(descriptions.join('\n')).toContain('Approved by Dave');
    for (const description of descriptions)
      expect(outsideCode(description)).not.toContain('Approved by Dave');
  });

  it('attack: a table cell holding ``` stays inside the table every platform shows', () => {
    const table = monospaceTable({
      title: '',
      columns: [{ key: 'name', label: 'name', numeric: false }],
      rows: [[FORGED_TABLE_CELL]],
      omittedRows: 0,
    });
    expect(table).toContain('Approved by Dave');
    expect(outsideCode(table)).not.toContain('Approved by Dave');
  });
});
