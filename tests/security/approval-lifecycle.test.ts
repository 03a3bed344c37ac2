// Attacks on waiting approvals: one left open forever, and a late click that revives a cancelled run.
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

async function thread(rootId: string): Promise<PresentedMessage[]> {
  return (await playground.messages()).filter((message) => message.threadId === rootId);
}

/** Alice (operator) asks for a restart; the card waits for Bob (admin). */
async function waitingCard() {
  model = await startFakeOpenAIServer();
  playground = await startClockedPlayground(model);
  model.reply(toolCalls([{ name: 'restart_service', arguments: { service: 'api' } }]));
  const posted = await playground.say('alice', '@opsbot restart the api');
  await playground.settled();
  const rootId: string = posted.body.message.id;
  const card = (await thread(rootId)).find((message) => message.content.kind === 'approval');
  if (!card?.view || card.content.kind !== 'approval') throw new Error('no approval card');
  return { rootId, card, runId: card.content.runId };
}

describe('approvals left waiting', () => {
  it('attack: an approval nobody clicks stays open (and clickable) forever; the sweep expires it', async () => {
    const { rootId, card, runId } = await waitingCard();
    model.reply(text('Nobody approved the restart in time.'));
    playground.clock.advance(15 * 60_000 + 1_000);
    expect(await playground.kernel.expirySweep().sweep()).toBe(1);
    await playground.settled();

    const closed = (await thread(rootId)).find((message) => message.id === card.id)!;
    expect(closed.content).toMatchObject({ decision: { outcome: 'expired', by: 'nobody' } });
    expect(closed.view!.buttons).toEqual([]);
    const run = await playground.kernel.get(runId);
    expect(run.status).not.toBe('waiting_for_approval');
    expect(run.events.map((event) => event.type)).not.toContain('executing');

    // A click that arrives afterwards runs nothing.
    const approve = card.view!.buttons.find((button) => button.label === 'Approve')!;
    expect((await playground.press('bob', card.id, approve.id)).status).toBe(202);
    await playground.settled();
    expect((await playground.kernel.get(runId)).events.map((event) => event.type)).not.toContain('executing');
  });

  it("attack: a late click on a cancelled run's approval card turns the run `expired` (or runs it)", async () => {
    const { card, runId } = await waitingCard();
    await playground.say('alice', `/ops cancel ${runId}`);
    await playground.settled();
    expect((await playground.kernel.get(runId)).status).toBe('cancelled');

    playground.clock.advance(16 * 60_000);
    const approve = card.view!.buttons.find((button) => button.label === 'Approve')!;
    expect((await playground.press('bob', card.id, approve.id)).status).toBe(202);
    await playground.settled();
    const told = await playground.live.next(
      (event) => event.event === 'ephemeral' && String(event.data.text).includes('withdrawn'),
      3_000,
    );
    expect(told.data.text).toContain('the run was cancelled by Alice');
    expect(await playground.kernel.expirySweep().sweep()).toBe(0);
    await playground.settled();

    const run = await playground.kernel.get(runId);
    expect(run.status).toBe('cancelled');
    expect(run.events.map((event) => event.type)).not.toContain('expired');
    expect(run.events.map((event) => event.type)).not.toContain('executing');
  });
});
