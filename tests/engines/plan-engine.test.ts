// The plan engine through the kernel, the real openai SDK and the fake server: a plan, its levels, the answer.
import { afterEach, describe, expect, it } from 'vitest';
import { text } from '../fakes/openai-server.js';
import {
  alice,
  conversation,
  createHarness,
  type Harness,
  runTask,
  toolMessages,
} from '../kernel/harness.js';
import { checklistVersions, lastMessage, planReply, stateLines, systemPrompt } from './plan-script.js';

let harness: Harness;
afterEach(async () => harness?.close());

const onPlan = { principal: alice, conversation, engine: 'plan' as const };

describe('plan engine', () => {
  it('runs the reads of one level together, then answers from their results in one more call', async () => {
    harness = await createHarness();
    harness.fake.reply(
      planReply([
        { id: 's1', tool: 'check_http', args: { url: 'https://a.example' }, why: 'is a up' },
        { id: 's2', tool: 'check_http', args: { url: 'https://b.example' } },
        { id: 's3', tool: 'read_logs', args: { service: 'api' } },
      ]),
      text('Both sites are up, and the api logs are quiet.'),
    );
    const run = await runTask(harness.kernel, { text: 'are a and b up?', ...onPlan });

    expect(run.status).toBe('finished');
    expect(run.answer).toBe('Both sites are up, and the api logs are quiet.');
    expect(harness.probe.calls.map((call) => call.tool)).toEqual(['check_http', 'check_http', 'read_logs']);
    expect(harness.probe.maxInFlight).toBe(3);
    expect(run.usage).toMatchObject({ modelCalls: 2, toolCalls: 3, promptTokens: 20, completionTokens: 10 });
    const [planning, answering] = harness.fake.requests;
    // The plan is asked for in text, with the tools as a catalog; neither call is offered tools.
    expect(planning!.body.tools ?? []).toEqual([]);
    expect(systemPrompt(planning!)).toContain('- check_http (read): Check a URL.');
    expect(systemPrompt(planning!)).toContain('"steps"');
    expect(answering!.body.tools ?? []).toEqual([]);
    const results = toolMessages(answering!.body) as { summary: string }[];
    expect(results.map((result) => result.summary)).toEqual([
      'https://a.example answered 200',
      'https://b.example answered 200',
      '3 lines from api',
    ]);
    expect(lastMessage(answering!)).toContain('1. check_http (id s1): ok: https://a.example answered 200');
    // Every tool call in the transcript is followed by its tool message.
    const assistant = answering!.body.messages!.filter((message) => message.tool_calls?.length);
    expect(assistant.flatMap((message) => message.tool_calls!.map((call) => call.id))).toEqual([
      'plan1_1',
      'plan1_2',
      'plan1_3',
    ]);
    expect(run.events.filter((event) => event.type === 'plan_made')).toEqual([
      expect.objectContaining({
        round: 1,
        steps: expect.arrayContaining([expect.objectContaining({ tool: 'read_logs' })]),
      }),
    ]);
  });

  it('runs dependent steps level by level, in dependency order, whatever order they were written in', async () => {
    harness = await createHarness();
    harness.fake.reply(
      planReply([
        { id: 'note', tool: 'write_note', args: { text: 'checked' }, depends_on: ['logs'] },
        { id: 'logs', tool: 'read_logs', args: { service: 'api' }, depends_on: ['http'] },
        { id: 'http', tool: 'check_http', args: { url: 'https://a.example' } },
      ]),
      text('checked and noted'),
    );
    const run = await runTask(harness.kernel, { text: 'check, read, note', ...onPlan });
    expect(run.status).toBe('finished');
    expect(harness.probe.calls.map((call) => call.tool)).toEqual(['check_http', 'read_logs', 'write_note']);
    expect(harness.probe.maxInFlight).toBe(1);
    // A step per level and one for the plan; the answer is the fifth.
    expect(run.step).toBe(4);
    expect(harness.fake.requests).toHaveLength(2);
  });

  it('runs a write of a level alone, after the level’s reads', async () => {
    harness = await createHarness();
    harness.fake.reply(
      planReply([
        { id: 's1', tool: 'write_note', args: { text: 'started' } },
        { id: 's2', tool: 'check_http', args: { url: 'https://a.example' } },
        { id: 's3', tool: 'check_http', args: { url: 'https://b.example' } },
      ]),
      text('done'),
    );
    await runTask(harness.kernel, { text: 'note and check', ...onPlan });
    expect(harness.probe.calls.map((call) => call.tool)).toEqual(['check_http', 'check_http', 'write_note']);
    expect(harness.probe.maxInFlight).toBe(2);
  });

  it('takes a reply with no plan as the answer, in one model call', async () => {
    harness = await createHarness();
    harness.fake.reply(text('Hello! I can check sites and read logs. Next steps: tell me which service.'));
    const run = await runTask(harness.kernel, { text: 'hello', ...onPlan });
    expect(run.status).toBe('finished');
    expect(run.answer).toBe('Hello! I can check sites and read logs. Next steps: tell me which service.');
    expect(harness.fake.requests).toHaveLength(1);
    expect(harness.probe.calls).toEqual([]);
    expect(checklistVersions(harness.chat)).toEqual([]);
  });

  it('re-plans once after a failed step, with the failure shown, and skips what depended on it', async () => {
    harness = await createHarness();
    harness.fake.reply(
      planReply([
        { id: 's1', tool: 'flaky', args: { n: 1 } },
        { id: 's2', tool: 'read_logs', args: { service: 'api' }, depends_on: ['s1'] },
        { id: 's3', tool: 'check_http', args: { url: 'https://a.example' } },
      ]),
      planReply([{ id: 'n1', tool: 'read_logs', args: { service: 'worker' } }]),
      text('flaky is down; the worker logs show why.'),
    );
    const run = await runTask(harness.kernel, { text: 'why is flaky failing?', ...onPlan });
    expect(run.status).toBe('finished');
    expect(harness.probe.calls.map((call) => call.tool)).toEqual(['flaky', 'check_http', 'read_logs']);
    const replanning = harness.fake.requests[1]!;
    expect(lastMessage(replanning)).toContain('Step 1 (flaky) failed.');
    expect(lastMessage(replanning)).toContain(
      '1. flaky (id s1): failed: flaky failed: connection reset by peer',
    );
    expect(lastMessage(replanning)).toContain('2. read_logs (id s2): skipped: step 1 (flaky) failed');
    expect(harness.fake.requests).toHaveLength(3);
    const last = checklistVersions(harness.chat).at(-1)!;
    expect(last.round).toBe(2);
    expect(stateLines(last)).toEqual([
      '1 flaky failed',
      '2 read_logs skipped',
      '3 check_http ok',
      '4 read_logs ok',
    ]);
    expect(run.events.filter((event) => event.type === 'plan_made').map((event) => event.round)).toEqual([
      1, 2,
    ]);
  });

  it('answers with the failures after a second failure, without a third plan', async () => {
    harness = await createHarness();
    harness.fake.reply(
      planReply([{ id: 's1', tool: 'flaky', args: { n: 1 } }]),
      planReply([
        { id: 's1', tool: 'flaky', args: { n: 2 } },
        { id: 's2', tool: 'check_http', args: { url: 'https://a.example' }, depends_on: ['s1'] },
      ]),
      text('flaky failed twice: connection reset by peer.'),
    );
    const run = await runTask(harness.kernel, { text: 'check flaky', ...onPlan });
    expect(run.status).toBe('finished');
    expect(run.ok).toBe(false);
    expect(harness.fake.requests).toHaveLength(3);
    const answering = harness.fake.requests[2]!;
    expect(lastMessage(answering)).toContain('2. flaky (id s1, new plan): failed');
    expect(lastMessage(answering)).toContain(
      '3. check_http (id s2, new plan): skipped: step 2 (flaky) failed',
    );
    expect(harness.probe.count('check_http')).toBe(0);
    expect(stateLines(checklistVersions(harness.chat).at(-1))).toEqual([
      '1 flaky failed',
      '2 flaky failed',
      '3 check_http skipped',
    ]);
  });

  it.each([
    [
      'an unknown tool',
      [{ id: 's1', tool: 'delete_everything', args: {} }],
      'step s1 calls delete_everything, which is not one of the tools offered: check_http',
    ],
    [
      'a cycle',
      [
        { id: 'a', tool: 'read_logs', args: { service: 'api' }, depends_on: ['b'] },
        { id: 'b', tool: 'check_http', args: { url: 'https://a.example' }, depends_on: ['a'] },
      ],
      'steps a, b depend on each other in a cycle',
    ],
    [
      'bad arguments',
      [{ id: 's1', tool: 'restart_service', args: { service: 'database' } }],
      'step s1: Invalid arguments for restart_service: service:',
    ],
    [
      'a dependency on a missing step',
      [{ id: 's1', tool: 'read_logs', args: { service: 'api' }, depends_on: ['s0'] }],
      'step s1 depends on s0, which is not a step of this plan',
    ],
  ])(
    'answers a plan with %s with the problem once, then runs the fixed plan',
    async (_name, steps, problem) => {
      harness = await createHarness();
      harness.fake.reply(
        planReply(steps),
        planReply([{ id: 's1', tool: 'check_http', args: { url: 'https://a.example' } }]),
        text('a is up'),
      );
      const run = await runTask(harness.kernel, { text: 'check a', ...onPlan });
      expect(run.status).toBe('finished');
      expect(run.answer).toBe('a is up');
      const fixing = harness.fake.requests[1]!;
      expect(lastMessage(fixing)).toContain('Your plan cannot run:');
      expect(lastMessage(fixing)).toContain(problem);
      expect(harness.probe.calls.map((call) => call.tool)).toEqual(['check_http']);
      expect(run.usage.modelCalls).toBe(3);
    },
  );

  it('fails the run clearly when the plan is invalid twice, and runs nothing', async () => {
    harness = await createHarness();
    harness.fake.reply(
      planReply([{ id: 's1', tool: 'delete_everything' }]),
      planReply([
        { id: 'a', tool: 'read_logs', args: { service: 'api' }, depends_on: ['b'] },
        { id: 'b', tool: 'read_logs', args: { service: 'db' }, depends_on: ['a'] },
      ]),
    );
    const run = await runTask(harness.kernel, { text: 'delete everything', ...onPlan });
    expect(run.status).toBe('failed');
    expect(run.error?.code).toBe('opsbot_plan_invalid');
    expect(run.error?.message).toMatch(
      /^The model's plan was invalid twice: steps a, b depend on each other in a cycle, so none of them could start\. Rephrase the task/,
    );
    expect(harness.probe.calls).toEqual([]);
    expect(harness.fake.requests).toHaveLength(2);
    expect(harness.chat.ofKind('result').at(-1)).toMatchObject({ ok: false });
  });

  it('reads a plan written as JSON that cannot be parsed as invalid, and says so to the model', async () => {
    harness = await createHarness();
    harness.fake.reply(
      text('{"steps": [{"id": "s1", "tool": "check_http", "args": {"url": '),
      planReply([{ id: 's1', tool: 'check_http', args: { url: 'https://a.example' } }]),
      text('a is up'),
    );
    const run = await runTask(harness.kernel, { text: 'check a', ...onPlan });
    expect(run.status).toBe('finished');
    expect(lastMessage(harness.fake.requests[1]!)).toContain(
      'the plan could not be read: it is not valid JSON',
    );
  });

  it('posts the plan as a checklist and updates the same message as the steps finish', async () => {
    harness = await createHarness();
    harness.fake.reply(
      planReply([
        { id: 's1', tool: 'check_http', args: { url: 'https://a.example' }, why: 'is a up' },
        { id: 's2', tool: 'read_logs', args: { service: 'api' }, depends_on: ['s1'] },
      ]),
      text('fine'),
    );
    const run = await runTask(harness.kernel, { text: 'check a then the logs', ...onPlan });
    expect(run.status).toBe('finished');
    const versions = checklistVersions(harness.chat);
    expect(harness.chat.posts.filter((post) => post.message.kind === 'plan')).toHaveLength(1);
    expect(stateLines(versions[0])).toEqual(['1 check_http running', '2 read_logs waiting']);
    expect(versions[0]!.steps[0]).toMatchObject({ why: 'is a up' });
    expect(versions.map(stateLines)).toContainEqual(['1 check_http ok', '2 read_logs running']);
    expect(versions.at(-1)!.steps).toEqual([
      {
        number: 1,
        tool: 'check_http',
        why: 'is a up',
        state: 'ok',
        summary: 'https://a.example answered 200',
      },
      { number: 2, tool: 'read_logs', state: 'ok', summary: '3 lines from api' },
    ]);
    // The checklist comes before the answer in the thread.
    const kinds = harness.chat.posts.map((post) => post.message.kind).filter((kind) => kind !== 'status');
    expect(kinds).toEqual(['plan', 'result']);
  });

  it('redacts secrets in the checklist, the transcript and the answer', async () => {
    harness = await createHarness();
    harness.fake.reply(
      planReply([
        {
          id: 's1',
          tool: 'write_note',
          args: { text: 'key sk-proj-abcdefghijklmnopqrstuvwxyz0123' },
          why: 'note sk-proj-abcdefghijklmnopqrstuvwxyz0123',
        },
      ]),
      text('noted sk-proj-abcdefghijklmnopqrstuvwxyz0123'),
    );
    const run = await runTask(harness.kernel, { text: 'note it', ...onPlan });
    expect(JSON.stringify(harness.chat.posts)).not.toContain('sk-proj-abcdefghijklmnop');
    expect(JSON.stringify(run.messages)).not.toContain('sk-proj-abcdefghijklmnop');
    expect(run.answer).not.toContain('sk-proj-abcdefghijklmnop');
  });

  it('answers from what it found at the step limit, and shows the steps not run as skipped', async () => {
    harness = await createHarness({ kernel: { limits: { maxSteps: 3 } } });
    harness.fake.reply(
      planReply([
        { id: 'a', tool: 'check_http', args: { url: 'https://a.example' } },
        { id: 'b', tool: 'read_logs', args: { service: 'api' }, depends_on: ['a'] },
        { id: 'c', tool: 'write_note', args: { text: 'done' }, depends_on: ['b'] },
      ]),
      text('a is up and the api logs are quiet; the note was not written.'),
    );
    const run = await runTask(harness.kernel, { text: 'check, read, note', ...onPlan });
    expect(run.status).toBe('finished');
    expect(harness.probe.calls.map((call) => call.tool)).toEqual(['check_http', 'read_logs']);
    expect(lastMessage(harness.fake.requests[1]!)).toContain('limits.max_steps is 3');
    expect(run.answer).toContain('a is up and the api logs are quiet; the note was not written.');
    expect(stateLines(checklistVersions(harness.chat).at(-1))).toEqual([
      '1 check_http ok',
      '2 read_logs ok',
      '3 write_note skipped',
    ]);
  });

  it('runs a typed command on the command engine when no model is configured', async () => {
    harness = await createHarness({ model: false });
    const run = await runTask(harness.kernel, {
      text: 'check_http url=https://a.example',
      principal: alice,
      conversation,
      modelEngine: 'plan',
    });
    expect(run.engine).toBe('command');
    expect(run.status).toBe('finished');
    expect(harness.probe.calls.map((call) => call.tool)).toEqual(['check_http']);
  });
});
