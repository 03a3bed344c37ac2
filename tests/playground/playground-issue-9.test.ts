// Issue 9's three defects through the playground's HTTP API, on an injected clock: cancel sticks past the lease
// and the sweeps, a late click on a cancelled run's card is refused, and an approval nobody clicks expires.
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_RUN_LEASE_MS } from '../../agent/kernel-options.js';
import type { PresentedMessage } from '../../bot/playground/playground-view.js';
import { type FakeOpenAIServer, startFakeOpenAIServer, text, toolCalls } from '../fakes/openai-server.js';
import { type ClockedPlayground, startClockedPlayground } from './helpers/clocked-playground.js';
import { inspectRendered } from './rendered-message.js';

let model: FakeOpenAIServer;
let playground: ClockedPlayground;

afterEach(async () => {
  await playground?.stop();
  await model?.close();
});

async function start(): Promise<ClockedPlayground> {
  model = await startFakeOpenAIServer();
  playground = await startClockedPlayground(model);
  return playground;
}

/** The bot's messages in a thread, as a page loading now sees them. */
async function thread(rootId: string): Promise<PresentedMessage[]> {
  return (await playground.messages()).filter((message) => message.threadId === rootId);
}

async function threadText(rootId: string): Promise<string> {
  const now = playground.clock.now();
  return (await thread(rootId)).map((message) => inspectRendered(message, [], now).text).join('\n');
}

async function runIdOf(rootId: string): Promise<string> {
  const withRun = (await thread(rootId)).find((message) => 'runId' in message.content);
  if (!withRun || !('runId' in withRun.content)) throw new Error(`no run in thread ${rootId}`);
  return withRun.content.runId;
}

async function privateReply(containing: string): Promise<string> {
  // The router has answered by the time the test asks; this only allows for the stream's own delay.
  const reply = await playground.live.next(
    (event) => event.event === 'ephemeral' && String(event.data.text).includes(containing),
    3_000,
  );
  return reply.data.text;
}

/** Alice asks for a restart of the api; the approval card waits for an admin. */
async function waitingCard() {
  model.reply(toolCalls([{ name: 'restart_service', arguments: { service: 'api' } }], { content: 'stuck' }));
  const posted = await playground.say('alice', '@opsbot restart the api');
  await playground.settled();
  const rootId: string = posted.body.message.id;
  const card = (await thread(rootId)).find((message) => message.content.kind === 'approval');
  if (!card?.view) throw new Error(`no approval card:\n${await threadText(rootId)}`);
  return { rootId, card, runId: await runIdOf(rootId) };
}

describe('playground: cancel sticks', () => {
  it('cancels a working run for good: past its lease, recovery and the expiry sweep, the model is not called again', async () => {
    await start();
    let release!: () => void;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    let inModel!: () => void;
    const called = new Promise<void>((resolve) => {
      inModel = resolve;
    });
    model.respond(async (_request, index) => {
      if (index === 0) {
        inModel();
        await released;
      }
      return text('All done: the api is healthy.');
    });
    const posted = await playground.say('alice', '@opsbot check the api');
    const rootId: string = posted.body.message.id;
    await called;
    const runId = await runIdOf(rootId);

    expect((await playground.say('alice', `/ops cancel ${runId}`)).status).toBe(202);
    await playground.settled();
    expect(await privateReply(runId)).toBe(`Cancelled ${runId}.`);
    expect((await playground.kernel.get(runId)).status).toBe('cancelled');

    release();
    await playground.settled();
    const { kernel, clock } = playground;
    clock.advance(DEFAULT_RUN_LEASE_MS + 1_000);
    expect(await kernel.recover()).toEqual({ continued: 0, outcomeUnknown: 0 });
    expect(await kernel.expirySweep().sweep()).toBe(0);
    await playground.settled();

    expect((await kernel.get(runId)).status).toBe('cancelled');
    expect(model.requests).toHaveLength(1);
    const shown = await threadText(rootId);
    expect(shown).toContain('Cancelled by Alice');
    // Said once, by the run's status: not a second message repeating it.
    expect(shown.split('Cancelled by Alice')).toHaveLength(2);
    expect(shown).not.toMatch(/Done|All done/);
    const status = (await thread(rootId)).find((message) => message.content.kind === 'status');
    expect(status?.content).toMatchObject({ text: 'Cancelled by Alice', tone: 'warning' });
  });
});

describe('playground: cancel, then a late click', () => {
  it("closes the card with who cancelled it, and refuses Bob's click 16 minutes later", async () => {
    await start();
    model.respond(() => text('This answer must never be asked for.'));
    const { rootId, card, runId } = await waitingCard();
    const approve = card.view!.buttons.find((button) => button.label === 'Approve')!;

    await playground.say('alice', `/ops cancel ${runId}`);
    await playground.settled();
    expect(await privateReply(runId)).toBe(`Cancelled ${runId}.`);
    const closed = (await thread(rootId)).find((message) => message.id === card.id)!;
    expect(closed.view!.buttons).toEqual([]);
    expect(closed.view!.outcome).toMatchObject({ state: 'withdrawn', by: 'Alice' });
    expect(inspectRendered(closed, [], playground.clock.now()).text).toContain('Cancelled');

    playground.clock.advance(16 * 60_000);
    expect((await playground.press('bob', card.id, approve.id)).status).toBe(202);
    await playground.settled();
    expect(await privateReply('withdrawn')).toBe(
      'This request was withdrawn: the run was cancelled by Alice at 2026-01-01 12:00:00 UTC, so nothing was run.',
    );
    expect(await playground.kernel.expirySweep().sweep()).toBe(0);
    expect(await playground.kernel.recover()).toEqual({ continued: 0, outcomeUnknown: 0 });
    await playground.settled();

    const run = await playground.kernel.get(runId);
    expect(run.status).toBe('cancelled');
    expect(run.events.map((event) => event.type)).not.toContain('executing');
    expect(model.requests).toHaveLength(1);
    // The card shows the command it would have run ("will run: echo restarted api"); nothing ran it.
    expect(await threadText(rootId)).not.toMatch(/succeeded|Approved by/);
  });
});

describe('playground: approvals that nobody clicks', () => {
  it('expires the card in the sweep, tells the thread, lets the run go on, and frees the thread', async () => {
    await start();
    const { rootId, card, runId } = await waitingCard();
    model.reply(text('I could not restart the api: nobody approved in time.'));

    playground.clock.advance(15 * 60_000 + 1_000);
    expect(await playground.kernel.expirySweep().sweep()).toBe(1);
    await playground.settled();

    const expired = (await thread(rootId)).find((message) => message.id === card.id)!;
    // Stored as expired by the sweep, not only drawn as expired because its time has passed.
    expect(expired.content).toMatchObject({ decision: { outcome: 'expired', by: 'nobody' } });
    expect(expired.view!.buttons).toEqual([]);
    expect(inspectRendered(expired, [], playground.clock.now()).text).toContain('nobody approved');
    expect((await playground.kernel.get(runId)).status).toBe('finished');
    const shown = await threadText(rootId);
    expect(shown).toContain('expired before anyone decided (at 12:15 UTC), so it was not run');
    expect(shown).toContain('I could not restart the api: nobody approved in time.');

    model.reply(text('The worker is fine.'));
    await playground.say('alice', 'and check the worker', rootId);
    await playground.settled();
    expect(await threadText(rootId)).toContain('The worker is fine.');
    expect(await threadText(rootId)).not.toContain('Queued behind');
  });
});

describe('playground: said once', () => {
  it("shows a finished run's id once in its thread: in its status, not again under the answer", async () => {
    await start();
    model.reply(text('the api answers 200'));
    const posted = await playground.say('alice', '@opsbot is the api up?');
    await playground.settled();
    const rootId: string = posted.body.message.id;
    const runId = await runIdOf(rootId);
    const shown = await threadText(rootId);
    expect(shown).toContain('the api answers 200');
    expect(shown.split(runId)).toHaveLength(2);
  });
});
