// The router: tasks, answers, clicks, commands, retries, rate limits and one run per thread.
import { afterEach, describe, expect, it } from 'vitest';
import type { Conversation } from '../../agent/conversation.js';
import { ErrorCode, SystemError } from '../../agent/errors.js';
import type { Logger } from '../../agent/logger.js';
import type { Principal } from '../../agent/principal.js';
import type { ChatEvent } from '../../bot/chat/chat-event.js';
import { SettingsSchema } from '../../bot/config/settings-schema.js';
import { Router } from '../../bot/router/router.js';
import { type ApprovalHarness, createApprovalHarness, permissions } from '../approvals/approval-harness.js';
import { recordingLogger } from '../discord/discord-adapter-rig.js';
import { text, toolCalls } from '../fakes/openai-server.js';

let harness: ApprovalHarness;
/** The router, whose replies come back at once; `handle` also waits for the runs it started to settle. */
let router: Pick<Router, 'handle'>;
let nextEvent = 0;
afterEach(async () => harness?.close());

const channel: Conversation = { platform: 'playground', channelId: 'ops', channelName: 'ops' };
const thread = (id: string): Conversation => ({ ...channel, threadId: id });

async function setup(overrides: Record<string, unknown> = {}, logger: Logger = silent) {
  harness = await createApprovalHarness('memory', overrides);
  const settings = SettingsSchema.parse({ permissions: { ...permissions, ...overrides } });
  const real = new Router({ kernel: harness.kernel, settings, logger, clock: harness.clock });
  router = {
    async handle(event) {
      const reply = await real.handle(event);
      await harness.kernel.idle();
      return reply;
    },
  };
}
const silent = { debug() {}, info() {}, warn() {}, error() {}, child: () => silent };

function message(
  principal: Principal,
  conversation: Conversation,
  body: string,
  extra: Partial<Extract<ChatEvent, { kind: 'message' }>> = {},
): ChatEvent {
  return {
    kind: 'message',
    eventId: `e${++nextEvent}`,
    principal,
    conversation,
    text: body,
    mentioned: true,
    direct: false,
    ...extra,
  };
}

describe('router', () => {
  // A retried delivery of the same event is dropped by the chat intake: tests/chat/event-intake.test.ts.
  it('runs a mention as a task in its thread', async () => {
    await setup();
    harness.fake.reply(text('api is up'));
    const event = message(harness.person('alice'), thread('t1'), 'is the api up?');
    expect(await router.handle(event)).toEqual({});
    expect(harness.fake.requests).toHaveLength(1);
    expect(harness.chat.ofKind('result')[0]).toMatchObject({ text: 'api is up' });
    expect(harness.chat.posts.every((post) => post.conversation.threadId === 't1')).toBe(true);
  });

  it('takes a thread reply from the requester as the answer to a waiting question', async () => {
    await setup();
    harness.fake.reply(
      toolCalls([{ name: 'ask_user', arguments: { question: 'Which env?' } }]),
      text('prod is fine'),
    );
    await router.handle(message(harness.person('alice'), thread('t1'), 'check it'));
    await router.handle(message(harness.person('alice'), thread('t1'), 'prod', { mentioned: false }));
    expect(harness.chat.ofKind('result').at(-1)).toMatchObject({ text: 'prod is fine' });
  });

  it('ignores plain messages in threads it never worked in, and continues threads it did', async () => {
    await setup();
    expect(
      await router.handle(message(harness.person('alice'), thread('quiet'), 'lunch?', { mentioned: false })),
    ).toEqual({});
    expect(harness.fake.requests).toHaveLength(0);
    harness.fake.reply(text('first'), text('second, with memory'));
    await router.handle(message(harness.person('alice'), thread('t2'), 'check api'));
    await router.handle(
      message(harness.person('alice'), thread('t2'), 'and the worker?', { mentioned: false }),
    );
    expect(harness.fake.requests).toHaveLength(2);
    expect(String(harness.fake.requests[1]!.body.messages![0]!.content)).toContain('check api');
  });

  it('limits new tasks per person per minute with a clear message to that person only', async () => {
    await setup({ tasks_per_minute: 2 });
    harness.fake.respond(() => text('ok'));
    const replies = [];
    for (const id of ['a', 'b', 'c'])
      replies.push(await router.handle(message(harness.person('alice'), thread(id), 'check')));
    expect(harness.fake.requests).toHaveLength(2);
    expect(replies.at(-1)!.ephemeral).toMatch(/^You can start at most 2 tasks per minute/);
    // Written to Alice ("you"), so never posted where everyone reads it.
    expect(harness.chat.texts().some((line) => /start at most/.test(line))).toBe(false);
    harness.clock.advance(60_000);
    await router.handle(message(harness.person('alice'), thread('d'), 'check'));
    expect(harness.fake.requests).toHaveLength(3);
  });

  it('answers a command typed in a thread to its asker only: the answer says "you"', async () => {
    await setup();
    const reply = await router.handle(message(harness.person('alice'), thread('t1'), 'permissions'));
    expect(reply.ephemeral).toMatch(/Tools you can use here: /);
    expect(harness.chat.posts).toHaveLength(0);
    expect(harness.fake.requests).toHaveLength(0);
  });

  it('queues a new task while the thread has a run waiting for approval, tells the person, and runs it after', async () => {
    await setup();
    harness.fake.reply(
      toolCalls([{ name: 'restart_service', arguments: { service: 'api' } }], { content: 'stuck' }),
    );
    await router.handle(message(harness.person('alice'), thread('t1'), 'restart api'));
    await router.handle(message(harness.person('alice'), thread('t1'), 'also check the worker'));
    expect(harness.chat.texts()).toContainEqual(
      expect.stringContaining(
        "Queued behind Alice's run: it waits for an approval of restart_service. Alice's request starts when that run ends",
      ),
    );
    expect(harness.fake.requests).toHaveLength(1);

    const card = harness.chat.ofKind('approval')[0]!;
    harness.fake.reply(text('restarted'), text('worker is fine'));
    const reply = await router.handle({
      kind: 'action',
      eventId: 'click1',
      principal: harness.person('bob'),
      conversation: thread('t1'),
      action: 'approve',
      target: card.approvalId,
    });
    expect(reply).toEqual({});
    expect(harness.probe.count('restart_service')).toBe(1);
    expect(harness.chat.ofKind('result').map((result) => result.text)).toEqual([
      'restart_service (approved by Bob) succeeded: restarted api',
      'restarted',
      'worker is fine',
    ]);
  });

  it('tells a refused clicker why, privately, and leaves the approval pending', async () => {
    await setup();
    harness.fake.reply(toolCalls([{ name: 'restart_service', arguments: { service: 'api' } }]));
    await router.handle(message(harness.person('alice'), thread('t1'), 'restart api'));
    const card = harness.chat.ofKind('approval')[0]!;
    const reply = await router.handle({
      kind: 'action',
      eventId: 'click2',
      principal: harness.person('carol'),
      conversation: thread('t1'),
      action: 'approve',
      target: card.approvalId,
    });
    expect(reply.ephemeral).toMatch(/only someone with the admin role/);
    expect(harness.probe.count('restart_service')).toBe(0);
  });

  it('redacts the echo of an /ops task and its private replies, like every message the kernel posts', async () => {
    await setup();
    harness.fake.reply(text('checked'));
    const secret = 'xoxb-123456789012-abcdefghijklmnop';
    await router.handle({
      kind: 'command',
      eventId: 'c-secret',
      principal: harness.person('alice'),
      conversation: channel,
      text: `is the token ${secret} still valid?`,
    });
    const echo = harness.chat.posts[0]!.message;
    expect(echo).toMatchObject({ kind: 'text', text: expect.stringContaining('Alice asked: is the token') });
    expect(JSON.stringify(harness.chat.posts)).not.toContain(secret);
    const reply = await router.handle({
      kind: 'command',
      eventId: 'c-secret-2',
      principal: harness.person('alice'),
      conversation: channel,
      text: `status run_${secret}`,
    });
    expect(reply.ephemeral).toBe('There is no run run_[REDACTED] that you can see.');
  });

  it('answers /ops commands privately, and starts /ops <task> in a new thread under a posted task message', async () => {
    await setup();
    const whoami = await router.handle({
      kind: 'command',
      eventId: 'c1',
      principal: harness.person('bob'),
      conversation: channel,
      text: 'whoami',
    });
    expect(whoami.ephemeral).toBe('Bob: role admin.');
    const help = await router.handle({
      kind: 'command',
      eventId: 'c2',
      principal: harness.person('carol'),
      conversation: channel,
      text: 'help',
    });
    expect(help.ephemeral).toContain('/ops status');
    // Each tool as it is typed, with its arguments (required first) and its first sentence.
    const usable = help
      .ephemeral!.split('Tools you can use here:')[1]!
      .split('Tools that need an approver:')[0]!;
    expect(usable).toContain('• `check_http url=…` — Check a URL.');
    expect(usable).toContain('• `flaky [n=…]`');
    expect(usable).not.toContain('restart_service');

    harness.fake.reply(text('api up'));
    await router.handle({
      kind: 'command',
      eventId: 'c3',
      principal: harness.person('alice'),
      conversation: channel,
      text: 'is the api up?',
    });
    const root = harness.chat.posts[0]!;
    expect(root.conversation.threadId).toBeUndefined();
    expect(root.message).toMatchObject({ kind: 'text', text: 'Alice asked: is the api up?' });
    expect(harness.chat.posts.slice(1).every((post) => post.conversation.threadId === root.messageId)).toBe(
      true,
    );

    const status = await router.handle({
      kind: 'command',
      eventId: 'c4',
      principal: harness.person('alice'),
      conversation: channel,
      text: 'status',
    });
    expect(status.ephemeral).toBe('You have no active runs.');
  });

  it('shows and cancels a waiting run by id', async () => {
    await setup();
    harness.fake.reply(toolCalls([{ name: 'ask_user', arguments: { question: 'Which env?' } }]));
    await router.handle(message(harness.person('alice'), thread('t1'), 'check'));
    const runId = harness.chat.ofKind('question')[0]!.runId;
    const one = await router.handle({
      kind: 'command',
      eventId: 'c5',
      principal: harness.person('alice'),
      conversation: channel,
      text: `status ${runId}`,
    });
    expect(one.ephemeral).toContain('waiting for user');
    expect(one.ephemeral).toContain('(1 step, 0 tool calls, 15 tokens)');
    expect(one.ephemeral).toContain('asked: Which env?');
    const other = await router.handle({
      kind: 'command',
      eventId: 'c6',
      principal: harness.person('carol'),
      conversation: channel,
      text: `cancel ${runId}`,
    });
    expect(other.ephemeral).toMatch(/Only Alice/);
    const cancel = await router.handle({
      kind: 'command',
      eventId: 'c7',
      principal: harness.person('alice'),
      conversation: channel,
      text: `cancel ${runId}`,
    });
    expect(cancel.ephemeral).toBe(`Cancelled ${runId}.`);
  });

  it('logs an ordinary refusal at INFO, not ERROR', async () => {
    const logger = recordingLogger();
    await setup({}, logger);
    harness.fake.reply(toolCalls([{ name: 'ask_user', arguments: { question: 'Which env?' } }]));
    await router.handle(message(harness.person('alice'), thread('t1'), 'check'));
    const runId = harness.chat.ofKind('question')[0]!.runId;
    const refused = await router.handle({
      kind: 'command',
      eventId: 'c8',
      principal: harness.person('carol'),
      conversation: channel,
      text: `cancel ${runId}`,
    });
    expect(refused.ephemeral).toMatch(/Only Alice/);
    expect(logger.lines.filter((line) => line.level === 'error')).toEqual([]);
    expect(logger.lines).toContainEqual(
      expect.objectContaining({ level: 'info', msg: 'refused a chat request' }),
    );
  });

  it('frees the thread and runs the queued task when a run ends outside the router (an approval from the CLI)', async () => {
    await setup();
    harness.fake.reply(toolCalls([{ name: 'restart_service', arguments: { service: 'api' } }]));
    await router.handle(message(harness.person('alice'), thread('t1'), 'restart api'));
    await router.handle(message(harness.person('alice'), thread('t1'), 'then check the worker'));
    const card = harness.chat.ofKind('approval')[0]!;
    harness.fake.reply(text('restarted'), text('worker is fine'));
    let queuedStarted: () => void = () => {};
    const started = new Promise<void>((resolve) => {
      queuedStarted = resolve;
    });
    harness.kernel.onRunChange((run) => {
      if (run.task === 'then check the worker' && run.status === 'finished') queuedStarted();
    });
    await harness.kernel.decideApproval(card.approvalId, harness.person('bob'), 'approve');
    await started;
    expect(harness.chat.ofKind('result').map((result) => result.text)).toEqual([
      'restart_service (approved by Bob) succeeded: restarted api',
      'restarted',
      'worker is fine',
    ]);
  });

  it('does not leave the thread locked when a task cannot start', async () => {
    await setup();
    const store = harness.kernel.store;
    const append = store.append.bind(store);
    // As the real backends report a failed write.
    store.append = async () => {
      throw new SystemError(ErrorCode.StoreUnavailable, 'The SQLite store could not write: disk full');
    };
    const failed = await router.handle(message(harness.person('alice'), thread('t1'), 'check'));
    // The store's own words (keys, its address) stay in the log.
    expect(failed.ephemeral).toMatch(/my store is not working right now/);
    expect(failed.ephemeral).not.toMatch(/disk full/);
    store.append = append;
    harness.fake.reply(text('checked'));
    await router.handle(message(harness.person('alice'), thread('t1'), 'check again'));
    expect(harness.chat.texts().some((line) => line.includes('queued'))).toBe(false);
    expect(harness.chat.ofKind('result').at(-1)).toMatchObject({ text: 'checked' });
  });
});
