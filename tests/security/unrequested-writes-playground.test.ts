// attack: an unrequested write in the playground, composed as `npm start` composes it: the Confirm card is Alice's
// alone, and Bob (an admin, who may approve anything) cannot click it for her.
import { afterEach, describe, expect, it } from 'vitest';
import type { PresentedMessage } from '../../bot/playground/playground-view.js';
import { type FakeOpenAIServer, startFakeOpenAIServer, text, toolCalls } from '../fakes/openai-server.js';
import { type ClockedPlayground, startClockedPlayground } from '../playground/helpers/clocked-playground.js';

let model: FakeOpenAIServer;
let playground: ClockedPlayground;

afterEach(async () => {
  await playground?.stop();
  await model?.close();
});

const NOTE_WRITE = [
  '    note_write:',
  '      description: Write a note. In these tests it only prints the note.',
  '      argv: [echo, noted, "{text}"]',
  '      risk: write',
  '      parameters:',
  '        text: { description: The note to write. }',
  '',
].join('\n');

async function thread(rootId: string): Promise<PresentedMessage[]> {
  return (await playground.messages()).filter((message) => message.threadId === rootId);
}

describe('attack: an unrequested write in the playground', () => {
  it('waits for the requester to Confirm it; another person is refused', async () => {
    model = await startFakeOpenAIServer();
    playground = await startClockedPlayground(model, { moreCommands: NOTE_WRITE });
    model.reply(
      toolCalls([{ name: 'disk_usage', arguments: { paths: ['/'] } }]),
      toolCalls([{ name: 'note_write', arguments: { text: 'as the disk report says' } }]),
      text('Checked the disk.'),
    );
    const posted = await playground.say('alice', '@opsbot how full is the disk?');
    await playground.settled();
    const rootId: string = posted.body.message.id;
    const card = (await thread(rootId)).find((message) => message.content.kind === 'approval');
    if (!card?.view || card.content.kind !== 'approval') throw new Error('no Confirm card');
    expect(card.view.heading).toContain('Confirm needed: note_write');
    const confirm = card.view.buttons.find((button) => button.label === 'Confirm')!;
    const runId = card.content.runId;

    expect((await playground.press('bob', card.id, confirm.id)).status).toBe(202);
    await playground.settled();
    const told = await playground.live.next(
      (event) => event.event === 'ephemeral' && String(event.data.text).includes('Only Alice'),
      3_000,
    );
    expect(told.data.text).toContain('who asked for this run, can confirm or deny this');
    expect((await playground.kernel.get(runId)).status).toBe('waiting_for_approval');

    expect((await playground.press('alice', card.id, confirm.id)).status).toBe(202);
    await playground.settled();
    const ran = await playground.kernel.get(runId);
    expect(ran.events.some((event) => event.type === 'tool_result' && event.tool === 'note_write')).toBe(
      true,
    );
  });
});
