// The plan engine where a run waits or stops: approvals inside a plan, a cancel mid-plan, and a restart mid-plan
// that goes on from the stored plan without asking the model again or running a finished step twice.
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool } from '../../agent/tool.js';
import { type ApprovalHarness, createApprovalHarness } from '../approvals/approval-harness.js';
import { text } from '../fakes/openai-server.js';
import {
  alice,
  conversation,
  createHarness,
  type Harness,
  runTask,
  type TestRun,
  testTools,
} from '../kernel/harness.js';
import { checklistVersions, planReply, stateLines } from './plan-script.js';

let harness: Harness | undefined;
let approvals: ApprovalHarness | undefined;
afterEach(async () => {
  await harness?.close();
  await approvals?.close();
  harness = undefined;
  approvals = undefined;
});

const playground = { platform: 'playground' as const, channelId: 'ops', threadId: 'th1', channelName: 'ops' };

/** Polls (without sleeping a fixed time) until the condition holds. */
async function until(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 500 && !condition(); i++) await new Promise((resolve) => setImmediate(resolve));
  expect(condition()).toBe(true);
}

describe('plan engine: waits, cancels and restarts', () => {
  it('asks for approval of a danger step after its check, and goes on with the plan once approved', async () => {
    approvals = await createApprovalHarness('memory');
    const h = approvals;
    h.fake.reply(
      planReply([
        { id: 'check', tool: 'check_http', args: { url: 'https://api.example' } },
        {
          id: 'restart',
          tool: 'restart_service',
          args: { service: 'api' },
          depends_on: ['check'],
          why: 'the api does not answer; a restart should clear it',
        },
        { id: 'logs', tool: 'read_logs', args: { service: 'api' }, depends_on: ['restart'] },
      ]),
    );
    const waiting = await runTask(h.kernel, {
      text: 'restart the api if it is down',
      principal: h.person('alice'),
      conversation: playground,
      engine: 'plan',
    });
    expect(waiting.status).toBe('waiting_for_approval');
    expect(h.probe.calls.map((call) => call.tool)).toEqual(['check_http']);
    const card = h.chat.ofKind('approval')[0]!;
    expect(card).toMatchObject({
      tool: 'restart_service',
      reason: 'the api does not answer; a restart should clear it',
    });
    const shown = checklistVersions(h.chat).at(-1)!;
    expect(shown.steps[1]).toMatchObject({ state: 'running', summary: 'waiting for approval' });

    h.fake.reply(text('The api was down; it is restarted and its logs are clean.'));
    const click = await h.kernel.decideApproval(card.approvalId, h.person('bob'), 'approve');
    expect(click.settled).toBe(true);
    const done = (await h.kernel.settled(waiting.id)) as TestRun;
    expect(done.status).toBe('finished');
    expect(h.probe.calls.map((call) => call.tool)).toEqual(['check_http', 'restart_service', 'read_logs']);
    expect(h.fake.requests).toHaveLength(2);
    expect(stateLines(checklistVersions(h.chat).at(-1))).toEqual([
      '1 check_http ok',
      '2 restart_service ok',
      '3 read_logs ok',
    ]);
  });

  it('shows a denied step as refused and skips the steps after it', async () => {
    approvals = await createApprovalHarness('memory');
    const h = approvals;
    h.fake.reply(
      planReply([
        { id: 'restart', tool: 'restart_service', args: { service: 'api' } },
        { id: 'logs', tool: 'read_logs', args: { service: 'api' }, depends_on: ['restart'] },
      ]),
    );
    const waiting = await runTask(h.kernel, {
      text: 'restart the api',
      principal: h.person('alice'),
      conversation: playground,
      engine: 'plan',
    });
    const card = h.chat.ofKind('approval')[0]!;
    h.fake.reply(text('The restart was denied, so nothing ran.'));
    await h.kernel.decideApproval(card.approvalId, h.person('bob'), 'deny', 'not now');
    const done = (await h.kernel.settled(waiting.id)) as TestRun;
    expect(done.status).toBe('finished');
    expect(h.probe.calls).toEqual([]);
    // A refusal is the rules' answer, not a failure of the systems: no new plan is asked for.
    expect(h.fake.requests).toHaveLength(2);
    expect(stateLines(checklistVersions(h.chat).at(-1))).toEqual([
      '1 restart_service refused',
      '2 read_logs skipped',
    ]);
  });

  it('cancels mid-plan: the slow read is abandoned, and the steps not run show as skipped', async () => {
    harness = await createHarness({ kernel: { limits: { toolTimeoutMs: 60_000 } } });
    harness.fake.reply(
      planReply([
        { id: 's1', tool: 'never_returns', args: {} },
        { id: 's2', tool: 'read_logs', args: { service: 'api' }, depends_on: ['s1'] },
      ]),
    );
    const runId = await harness.kernel.start({
      text: 'wait forever',
      principal: alice,
      conversation,
      engine: 'plan',
    });
    const probe = harness.probe;
    await until(() => probe.count('never_returns') === 1);
    const result = await harness.kernel.cancel(runId, alice);
    expect(result.message).toBe(`Cancelled ${runId}.`);
    const run = (await harness.kernel.settled(runId)) as TestRun;
    expect(run.status).toBe('cancelled');
    expect(probe.count('read_logs')).toBe(0);
    const last = checklistVersions(harness.chat).at(-1)!;
    expect(last.steps.map((step) => `${step.state}: ${step.summary}`)).toEqual([
      'skipped: not run: the run was cancelled',
      'skipped: not run: the run was cancelled',
    ]);
  });

  it('resumes a plan after a restart at its next level, without asking the model again or re-running a step', async () => {
    let release = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let gated = 0;
    const gateTool = defineTool({
      name: 'slow_check',
      description: 'A check that waits for the test. Use in tests. Do not use otherwise.',
      input: z.object({}),
      risk: 'read',
      execute: async () => {
        gated += 1;
        await gate;
        return { ok: true, summary: 'slow check passed' };
      },
    });
    harness = await createHarness({ store: 'sqlite', kernel: { limits: { toolTimeoutMs: 60_000 } } });
    const h = harness;
    const tools = [...testTools(h.probe), gateTool];
    const first = h.newKernel({ tools });
    h.fake.reply(
      planReply([
        { id: 's1', tool: 'slow_check', args: {} },
        { id: 's2', tool: 'read_logs', args: { service: 'api' }, depends_on: ['s1'] },
      ]),
    );
    const runId = await first.start({
      text: 'check slowly, then the logs',
      principal: alice,
      conversation,
      engine: 'plan',
    });
    await until(() => gated === 1);
    // The process is stopped while the first level runs: it saves at the end of the level and steps no further.
    const stopping = first.shutdown();
    release();
    await stopping;
    const stored = await first.get(runId);
    expect(stored.status).toBe('running');
    expect(stored.stepPlan?.steps.map((step) => step.tool)).toEqual(['slow_check', 'read_logs']);
    expect(h.probe.count('read_logs')).toBe(0);
    expect(h.fake.requests).toHaveLength(1);

    const second = h.newKernel({ tools });
    h.fake.reply(text('slow check passed and the logs are quiet'));
    expect(await second.recover()).toMatchObject({ continued: 1 });
    const done = (await second.settled(runId)) as TestRun;
    expect(done.status).toBe('finished');
    expect(done.answer).toBe('slow check passed and the logs are quiet');
    expect(gated).toBe(1);
    expect(h.probe.count('read_logs')).toBe(1);
    // The plan, then the answer: the restart asked the model for no new plan.
    expect(h.fake.requests).toHaveLength(2);
    expect(done.usage.modelCalls).toBe(2);
    await second.shutdown();
  });
});
