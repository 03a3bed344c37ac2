// Which engine a task from chat runs on: `/ops plan <task>`, a channel's engine in the settings, the default.
import { afterEach, describe, expect, it } from 'vitest';
import type { Conversation } from '../../agent/conversation.js';
import type { Run } from '../../agent/run.js';
import type { ChatEvent } from '../../bot/chat/chat-event.js';
import { SettingsSchema } from '../../bot/config/settings-schema.js';
import { Router } from '../../bot/router/router.js';
import { type ApprovalHarness, createApprovalHarness, permissions } from '../approvals/approval-harness.js';
import { planReply } from '../engines/plan-script.js';
import { text } from '../fakes/openai-server.js';

let harness: ApprovalHarness;
let router: Router;
let nextEvent = 0;
afterEach(async () => harness?.close());

const silent = { debug() {}, info() {}, warn() {}, error() {}, child: () => silent };
const ops: Conversation = { platform: 'playground', channelId: 'ops', channelName: 'ops' };
const incidents: Conversation = { platform: 'playground', channelId: 'incidents', channelName: 'incidents' };

async function setup(settings: Record<string, unknown> = {}, model = true) {
  harness = await createApprovalHarness('memory', {}, model ? {} : { model: false });
  router = new Router({
    kernel: harness.kernel,
    settings: SettingsSchema.parse({ permissions, ...settings }),
    logger: silent,
    clock: harness.clock,
  });
}

async function command(body: string, conversation = ops) {
  const event: ChatEvent = {
    kind: 'command',
    eventId: `c${++nextEvent}`,
    principal: harness.person('alice'),
    conversation,
    text: body,
  };
  const reply = await router.handle(event);
  await harness.kernel.idle();
  return reply;
}

async function mention(body: string, conversation: Conversation) {
  await router.handle({
    kind: 'message',
    eventId: `m${++nextEvent}`,
    principal: harness.person('alice'),
    conversation: { ...conversation, threadId: `t${nextEvent}` },
    text: body,
    mentioned: true,
    direct: false,
  });
  await harness.kernel.idle();
}

async function onlyRun(): Promise<Run> {
  const ids = await harness.kernel.runs.activeRunIds();
  expect(ids).toEqual([]);
  const result = harness.chat.ofKind('result').at(-1);
  expect(result).toBeDefined();
  return harness.kernel.get(result!.runId);
}

describe('picking an engine from chat', () => {
  it('runs `/ops plan <task>` on the plan engine, echoing the task without the word plan', async () => {
    await setup();
    harness.fake.reply(
      planReply([{ id: 's1', tool: 'check_http', args: { url: 'https://a.example' } }]),
      text('a is up'),
    );
    expect(await command('plan is a up?')).toEqual({});
    const run = await onlyRun();
    expect(run).toMatchObject({ engine: 'plan', task: 'is a up?', status: 'finished' });
    expect(harness.chat.posts[0]!.message).toMatchObject({ kind: 'text', text: 'Alice asked: is a up?' });
    expect(harness.chat.ofKind('plan')).toHaveLength(1);
    expect(harness.probe.calls.map((call) => call.tool)).toEqual(['check_http']);
  });

  it('answers `/ops plan` without a task with how to use it, and starts nothing', async () => {
    await setup();
    const reply = await command('plan');
    expect(reply.ephemeral).toBe(
      '`/ops plan` needs a task, e.g. `/ops plan why is checkout slow?`: the model plans its checks first, they run, and it answers from their results.',
    );
    expect(harness.fake.requests).toHaveLength(0);
    expect(harness.chat.posts).toEqual([]);
  });

  it('runs tasks on the engine the settings give their channel, and on the default elsewhere', async () => {
    await setup({ engines: { channels: { '#incidents': 'plan' } } });
    harness.fake.reply(text('hello from plan'));
    await mention('hello', incidents);
    expect((await onlyRun()).engine).toBe('plan');
    harness.fake.reply(text('hello from react'));
    await mention('hello', ops);
    expect((await onlyRun()).engine).toBe('react');
    // react offers the model its tools; plan asks for a plan in text, offering none.
    expect(harness.fake.requests[0]!.body.tools ?? []).toEqual([]);
    expect(harness.fake.requests[1]!.body.tools?.length).toBeGreaterThan(0);
  });

  it('runs every task on plan when it is the default', async () => {
    await setup({ engines: { default: 'plan' } });
    harness.fake.reply(text('hi'));
    await mention('hello', ops);
    expect((await onlyRun()).engine).toBe('plan');
  });

  it('without a model, runs a typed command of `/ops plan` on the command engine, as react would', async () => {
    await setup({}, false);
    await command('plan check_http url=https://a.example');
    const run = await onlyRun();
    expect(run.engine).toBe('command');
    expect(run.status).toBe('finished');
    expect(harness.probe.calls.map((call) => call.tool)).toEqual(['check_http']);
  });

  it('lists `/ops plan` in the help when a model is configured', async () => {
    await setup();
    expect((await command('help')).ephemeral).toContain('• `/ops plan <task>` — the same, planned first');
  });
});
