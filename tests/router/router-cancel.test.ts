// Cancelling without a run id: `/ops cancel` in a thread stops that thread's run, alone it stops your only run or
// lists them; a Cancel button on the run's cards; and "cancel" as a whole reply to a question asks, not answers.
import { afterEach, describe, expect, it } from 'vitest';
import type { Conversation } from '../../agent/conversation.js';
import type { Principal } from '../../agent/principal.js';
import { decodeButton } from '../../bot/chat/button-codec.js';
import type { ChatEvent } from '../../bot/chat/chat-event.js';
import { messageView } from '../../bot/chat/message-view.js';
import { VIEW_LIMITS } from '../../bot/chat/view-limits.js';
import { SettingsSchema } from '../../bot/config/settings-schema.js';
import { Router } from '../../bot/router/router.js';
import { type ApprovalHarness, createApprovalHarness, permissions } from '../approvals/approval-harness.js';
import { text, toolCalls } from '../fakes/openai-server.js';

let harness: ApprovalHarness;
let router: Pick<Router, 'handle'>;
let nextEvent = 0;
afterEach(async () => harness?.close());

const channel: Conversation = { platform: 'playground', channelId: 'ops', channelName: 'ops' };
const thread = (id: string): Conversation => ({ ...channel, threadId: id });
const silent = { debug() {}, info() {}, warn() {}, error() {}, child: () => silent };

async function setup() {
  harness = await createApprovalHarness('memory');
  const settings = SettingsSchema.parse({ permissions });
  const real = new Router({ kernel: harness.kernel, settings, logger: silent, clock: harness.clock });
  router = {
    async handle(event) {
      const reply = await real.handle(event);
      await harness.kernel.idle();
      return reply;
    },
  };
}

const say = (principal: Principal, conversation: Conversation, text: string): ChatEvent => ({
  kind: 'message',
  eventId: `e${++nextEvent}`,
  principal,
  conversation,
  text,
  mentioned: true,
  direct: false,
});
const command = (principal: Principal, conversation: Conversation, text: string): ChatEvent => ({
  kind: 'command',
  eventId: `c${++nextEvent}`,
  principal,
  conversation,
  text,
});

/** Alice's run in `threadId`, waiting on its question. */
async function waitingQuestion(threadId: string): Promise<string> {
  harness.fake.reply(toolCalls([{ name: 'ask_user', arguments: { question: 'Which env?' } }]));
  await router.handle(say(harness.person('alice'), thread(threadId), 'check it'));
  const question = harness.chat.ofKind('question').at(-1)!;
  return question.runId;
}

describe('cancel without a run id', () => {
  it("in a thread, cancels that thread's run", async () => {
    await setup();
    const runId = await waitingQuestion('t1');
    const reply = await router.handle(command(harness.person('alice'), thread('t1'), 'cancel'));
    expect(reply.ephemeral).toBe(`Cancelled ${runId}.`);
    expect((await harness.kernel.get(runId)).status).toBe('cancelled');
  });

  it('in a thread, refuses someone who may not, naming who may', async () => {
    await setup();
    const runId = await waitingQuestion('t1');
    const reply = await router.handle(command(harness.person('carol'), thread('t1'), 'cancel'));
    expect(reply.ephemeral).toBe('Only Alice or an admin may cancel the run in this thread.');
    expect((await harness.kernel.get(runId)).status).toBe('waiting_for_user');
  });

  it('at the top level, cancels your only run, and lists them when there are several', async () => {
    await setup();
    const first = await waitingQuestion('t1');
    const none = await router.handle(command(harness.person('carol'), channel, 'cancel'));
    expect(none.ephemeral).toBe('You have no active runs.');
    const second = await waitingQuestion('t2');
    const listed = await router.handle(command(harness.person('alice'), channel, 'cancel'));
    expect(listed.ephemeral).toContain('You have several active runs; say which to cancel:');
    expect(listed.ephemeral).toContain(`/ops cancel ${first}`);
    expect(listed.ephemeral).toContain(`/ops cancel ${second}`);
    await router.handle(command(harness.person('alice'), channel, `cancel ${first}`));
    const only = await router.handle(command(harness.person('alice'), channel, 'cancel'));
    expect(only.ephemeral).toBe(`Cancelled ${second}.`);
  });
});

describe('"cancel" as a reply to a question', () => {
  it('is not taken as the answer: the run still waits, and the person is told how to cancel', async () => {
    await setup();
    const runId = await waitingQuestion('t1');
    const reply = await router.handle(say(harness.person('alice'), thread('t1'), 'cancel'));
    expect(reply.ephemeral).toMatch(/^Cancel this run\? Click \*Cancel run\* on its question/);
    expect((await harness.kernel.get(runId)).status).toBe('waiting_for_user');
    expect(harness.fake.requests).toHaveLength(1);
  });
});

describe('"stop" as a whole message that answers no question', () => {
  it('in a thread whose run is at work, asks which run instead of queueing a task called "stop"', async () => {
    await setup();
    const runId = await waitingQuestion('t1');
    // Bob is an admin, but not the person asked: his "stop" is no answer, and no new task either.
    const reply = await router.handle(say(harness.person('bob'), thread('t1'), 'stop'));
    expect(reply.ephemeral).toBe(
      `Cancel run ${runId}? Click *Cancel run* on its status line, or send \`/ops cancel\` in this thread. "stop" was not taken as a task; to ask opsbot for it as one, put it in quotes.`,
    );
    expect((await harness.kernel.get(runId)).status).toBe('waiting_for_user');
    expect(await harness.kernel.runs.threadRunIds(thread('t1'))).toEqual([runId]);
    const carol = await router.handle(say(harness.person('carol'), thread('t1'), 'Cancel.'));
    expect(carol.ephemeral).toMatch(
      /^Only Alice or an admin may cancel the run in this thread\. "Cancel\." was not/,
    );
  });

  it('where nothing runs, says so, and starts nothing', async () => {
    await setup();
    harness.fake.reply(text('all fine'));
    await router.handle(say(harness.person('alice'), thread('t2'), 'check it'));
    const requests = harness.fake.requests.length;
    const reply = await router.handle(say(harness.person('alice'), thread('t2'), 'stop'));
    expect(reply.ephemeral).toMatch(/^No run is active in this thread, so there is nothing to stop\./);
    const top = await router.handle(say(harness.person('alice'), channel, 'cancel'));
    expect(top.ephemeral).toMatch(/^You have no active runs, so there is nothing to stop\./);
    expect(harness.fake.requests).toHaveLength(requests);
  });
});

describe('the Cancel button', () => {
  it("is on the run's working status and its question, and cancels for the requester, not for others", async () => {
    await setup();
    const runId = await waitingQuestion('t1');
    const question = messageView(harness.chat.ofKind('question').at(-1)!, {
      now: 0,
      limits: VIEW_LIMITS.slack,
    });
    const button = question.buttons.find((candidate) => candidate.label === 'Cancel run');
    expect(decodeButton(button?.id)).toEqual({ action: 'cancel', runId });
    const working = harness.chat.ofKind('status').find((status) => status.cancellable);
    expect(working).toBeDefined();
    const click = (principal: Principal): ChatEvent => ({
      kind: 'action',
      eventId: `a${++nextEvent}`,
      principal,
      conversation: thread('t1'),
      action: 'cancel',
      target: runId,
    });
    expect((await router.handle(click(harness.person('carol')))).ephemeral).toMatch(/Only Alice/);
    expect((await harness.kernel.get(runId)).status).toBe('waiting_for_user');
    expect((await router.handle(click(harness.person('alice')))).ephemeral).toBe(`Cancelled ${runId}.`);
    expect((await harness.kernel.get(runId)).status).toBe('cancelled');
    // The run's last status line offers no Cancel once it has ended.
    expect(harness.chat.ofKind('status').at(-1)).not.toHaveProperty('cancellable');
  });

  it('is on an approval card, on a row of its own below Approve and Deny', async () => {
    await setup();
    harness.fake.reply(toolCalls([{ name: 'restart_service', arguments: { service: 'api' } }]));
    await router.handle(say(harness.person('alice'), thread('t1'), 'restart api'));
    const card = harness.chat.ofKind('approval').at(-1)!;
    const view = messageView(card, { now: 0, limits: VIEW_LIMITS.slack });
    const cancel = view.buttons.find((button) => button.label === 'Cancel run');
    expect(decodeButton(cancel?.id)).toEqual({ action: 'cancel', runId: card.runId });
    expect(cancel?.row).toBeGreaterThan(0);
    expect(view.buttons[0]?.label).toMatch(/^Approve/);
  });
});

describe('a second person in a thread whose run waits for an answer', () => {
  it("queues even an admin's reply: only the person asked answers by replying", async () => {
    await setup();
    const alices = await waitingQuestion('t1');
    await router.handle(say(harness.person('bob'), thread('t1'), 'what about disk?'));
    expect((await harness.kernel.get(alices)).status).toBe('waiting_for_user');
    expect(harness.chat.texts()).toContainEqual(
      expect.stringContaining("Queued behind Alice's run: it waits for Alice's answer. Bob's request starts"),
    );
  });

  it("is queued behind that run, told why, and starts once it ends, with the thread's answer in order", async () => {
    await setup();
    const alices = await waitingQuestion('t1');
    const before = harness.fake.requests.length;
    await router.handle(say(harness.person('carol'), thread('t1'), 'and is the worker ok?'));
    // Carol's reply is no answer to Alice's question, and starts nothing yet.
    expect((await harness.kernel.get(alices)).status).toBe('waiting_for_user');
    expect(harness.fake.requests).toHaveLength(before);
    const texts = harness.chat.texts();
    expect(texts).toContainEqual(
      expect.stringContaining(
        "Queued behind Alice's run: it waits for Alice's answer. Carol's request starts when that run ends",
      ),
    );
    harness.fake.reply(text('staging is fine'), text('the worker is fine'));
    await router.handle(say(harness.person('alice'), thread('t1'), 'staging'));
    expect((await harness.kernel.get(alices)).status).toBe('finished');
    const results = harness.chat.ofKind('result').map((result) => result.text);
    expect(results).toEqual(['staging is fine', 'the worker is fine']);
    // Carol's run read the thread when it started, not when it was queued: Alice's answer is in its context.
    const carols = JSON.stringify(harness.fake.requests.at(-1)?.body.messages);
    expect(carols).toContain('Alice asked: \\"check it\\" → finished: staging is fine');
  });
});
