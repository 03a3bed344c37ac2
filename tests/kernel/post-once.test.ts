// Posts once (issue 15): a run stepped again after its worker died reuses the messages that worker posted, kept
// in the Store by post key. The answer is posted once and the status line is updated, never posted again: on
// SQLite and Redis shared by two processes (the model test's world), and on memory (the kernel harness).
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ChatPort, OutboundMessage } from '../../agent/chat-port.js';
import type { Run } from '../../agent/run.js';
import { storeKeys } from '../../agent/store/store-keys.js';
import { type FakeOpenAIServer, startFakeOpenAIServer, text } from '../fakes/openai-server.js';
import type { RecordingChatPort } from '../fakes/recording-chat-port.js';
import { alice, conversation, createHarness, type Harness } from './harness.js';
import { type Backend, LEASE_MS, ModelWorld, REDIS_URL, redisAnswers } from './model/model-world.js';
import { ProcessLife, type StoreCallMatch, storeOf } from './model/process-life.js';
import { scriptedResponder, taskText } from './model/scripted-model.js';

const hasRedis = await redisAnswers();

let fake: FakeOpenAIServer | undefined;
let world: ModelWorld | undefined;
let harness: Harness | undefined;
beforeAll(async () => {
  fake = await startFakeOpenAIServer({ record: false });
  fake.respond(scriptedResponder());
});
afterAll(async () => fake?.close());
afterEach(async () => {
  await world?.close();
  await harness?.close();
  world = undefined;
  harness = undefined;
});

/** The messages of one run of a kind, as people see them now (last update), with how often each was edited. */
function postsOf(chat: RecordingChatPort, runId: string, kind: OutboundMessage['kind']) {
  return chat.posts
    .filter((post) => post.message.kind === kind && 'runId' in post.message && post.message.runId === runId)
    .map((post) => ({ shown: post.updates.at(-1) ?? post.message, updates: post.updates.length }));
}

/** The save of the run in the given state: the process dies just before it reaches the store. */
const savingAs =
  (status: Run['status']): StoreCallMatch =>
  (method, args) =>
    method === 'set' &&
    String(args[0]).startsWith('run:') &&
    (args[1] as { status?: string } | undefined)?.status === status;

/** Alice's task on the first process, which dies at `dies`; the second recovers the run once the lease lapses. */
async function crashAndRecover(backend: Backend, dies: StoreCallMatch) {
  if (!fake) throw new Error('no fake model');
  world = await ModelWorld.create(backend, fake, 'continue');
  const [first, second] = world.replicas as [(typeof world.replicas)[0], (typeof world.replicas)[0]];
  first.life.dieBefore(dies);
  const runId = await first.kernel.start({
    text: taskText(1, ['read']),
    principal: world.person('alice'),
    conversation: world.conversation(0),
  });
  await first.life.died;
  await world.quiesce();
  const before = { results: postsOf(world.chat, runId, 'result').length };
  await world.advance(LEASE_MS + 1);
  await second.kernel.recover();
  await world.quiesce();
  return { world, runId, before, run: await second.kernel.get(runId) };
}

const backends: [Backend, boolean][] = [
  ['sqlite', true],
  ['redis', hasRedis],
];

describe.each(backends)('on %s shared by two processes', (backend, available) => {
  const skipped = available ? '' : ` (skipped: no Redis answered at ${REDIS_URL})`;

  it.skipIf(!available)(
    `a worker that dies after posting the answer, before saving it: the answer is posted once${skipped}`,
    async () => {
      const { world, runId, before, run } = await crashAndRecover(backend, savingAs('finished'));
      // The dead worker had posted the answer; the run was stored as still running.
      expect(before.results).toBe(1);
      expect(run.status).toBe('finished');
      const results = postsOf(world.chat, runId, 'result');
      expect(results).toHaveLength(1);
      // The same answer the second time: the message is left as it is.
      expect(results[0]?.updates).toBe(0);
      expect(results[0]?.shown).toMatchObject({ kind: 'result', text: 'task 1 done', ok: true });
      const status = postsOf(world.chat, runId, 'status');
      expect(status).toHaveLength(1);
      expect(status[0]?.shown).toMatchObject({ tone: 'success' });
      expect(world.problems).toEqual([]);
    },
  );

  it.skipIf(!available)(
    `a worker that dies after posting the status line, before saving it: the line is updated, not posted again${skipped}`,
    async () => {
      const { world, runId, run } = await crashAndRecover(backend, savingAs('running'));
      expect(run.status).toBe('finished');
      const status = postsOf(world.chat, runId, 'status');
      expect(status).toHaveLength(1);
      expect(status[0]?.shown).toMatchObject({ tone: 'success' });
      // Working (first worker), Working again (second worker, in place of a new line), ..., Finished.
      expect(status[0]?.updates).toBeGreaterThanOrEqual(2);
      expect(postsOf(world.chat, runId, 'result')).toHaveLength(1);
      expect(await world.observer.get(storeKeys.runPost(runId, 'status'))).toMatchObject({
        messageId: expect.any(String),
      });
    },
  );

  it.skipIf(!available)(
    `a worker that dies after posting an approval card, before saving it: the card is renewed in place, and works${skipped}`,
    async () => {
      if (!fake) throw new Error('no fake model');
      world = await ModelWorld.create(backend, fake, 'continue');
      const [first, second] = world.replicas as [(typeof world.replicas)[0], (typeof world.replicas)[0]];
      first.life.dieBefore(savingAs('waiting_for_approval'));
      const runId = await first.kernel.start({
        text: taskText(1, ['restart']),
        principal: world.person('alice'),
        conversation: world.conversation(0),
      });
      await first.life.died;
      await world.quiesce();
      await world.advance(LEASE_MS + 1);
      await second.kernel.recover();
      await world.quiesce();
      const waiting = await second.kernel.get(runId);
      if (waiting.status !== 'waiting_for_approval') throw new Error(`the run is ${waiting.status}`);
      // One card, now for the approval the run was saved with (the dead worker's approval is an orphan).
      const cards = postsOf(world.chat, runId, 'approval');
      expect(cards).toHaveLength(1);
      expect(cards[0]?.shown).toMatchObject({ approvalId: waiting.approval.approvalId });
      expect(waiting.approval.cardMessageId).toBe(
        world.chat.posts.find((post) => post.message.kind === 'approval')?.messageId,
      );
      const decided = await second.kernel.decideApproval(
        waiting.approval.approvalId,
        world.person('bob'),
        'approve',
      );
      expect(decided.message).toMatch(/^Approved/);
      await world.quiesce();
      expect((await second.kernel.get(runId)).status).toBe('finished');
      expect(world.executions.executions.map((execution) => execution.tool)).toEqual(['restart_service']);
      expect(postsOf(world.chat, runId, 'status')).toHaveLength(1);
    },
  );
});

/** A ChatPort as one process sees it: nothing posted once the process is dead. */
function chatOf(life: ProcessLife, chat: ChatPort): ChatPort {
  return {
    post: (where, message) => life.act(() => chat.post(where, message)),
    update: (ref, message) => life.act(() => chat.update(ref, message)),
  };
}

describe('on memory, through the kernel harness', () => {
  it('a worker dies after posting its answer; the model answers otherwise the second time: one answer, updated', async () => {
    harness = await createHarness({ store: 'memory' });
    const { chat, clock, fake: model, kernel: second } = harness;
    const life = new ProcessLife('first');
    const first = harness.newKernel({ store: storeOf(life, harness.store), chat: chatOf(life, chat) });
    life.dieBefore(savingAs('finished'));
    model.reply(text('the first answer'), text('the second answer'));
    const runId = await first.start({ text: 'is prod up?', principal: alice, conversation });
    await life.died;
    expect(postsOf(chat, runId, 'result').map((post) => post.shown)).toMatchObject([
      { text: 'the first answer' },
    ]);

    clock.advance(5 * 60_000 + 1);
    await second.recover();
    const run = await second.settled(runId);
    expect(run.status).toBe('finished');
    // One answer in the thread, showing the answer the run was saved with.
    const results = postsOf(chat, runId, 'result');
    expect(results).toHaveLength(1);
    expect(results[0]).toMatchObject({ updates: 1, shown: { text: 'the second answer' } });
    // The run was stored as queued, without its status line: the second worker updated that line.
    const status = postsOf(chat, runId, 'status');
    expect(status).toHaveLength(1);
    expect(status[0]?.shown).toMatchObject({ tone: 'success' });
  });
});
