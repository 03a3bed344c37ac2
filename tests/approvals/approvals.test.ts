// Approvals end to end through the kernel: cards, who may click, once-only execution, expiry, restarts, audit.
import { afterEach, describe, expect, it } from 'vitest';
import { text, toolCalls } from '../fakes/openai-server.js';
import { runTask, type TestRun } from '../kernel/harness.js';
import { type ApprovalHarness, createApprovalHarness } from './approval-harness.js';

let harness: ApprovalHarness;
afterEach(async () => harness?.close());

const conversation = {
  platform: 'playground' as const,
  channelId: 'ops',
  threadId: 'th1',
  channelName: 'ops',
};
const restartApi = toolCalls([{ name: 'restart_service', arguments: { service: 'api' } }], {
  content: 'api is stuck; a restart should clear it',
});

async function waitingRestart(h: ApprovalHarness) {
  h.fake.reply(restartApi);
  const run = await runTask(h.kernel, {
    text: 'restart the api',
    principal: h.person('alice'),
    conversation,
  });
  expect(run.status).toBe('waiting_for_approval');
  const card = h.chat.ofKind('approval')[0]!;
  return { run, card };
}

describe('approvals', () => {
  it('suspends a danger call and posts a card with requester, exact redacted args, reason, approvers and expiry', async () => {
    harness = await createApprovalHarness('memory');
    const { card } = await waitingRestart(harness);
    expect(card).toMatchObject({
      requester: 'Alice',
      tool: 'restart_service',
      reason: 'api is stuck; a restart should clear it',
    });
    expect(JSON.parse(card.argumentsJson)).toEqual({ service: 'api' });
    expect(card.approvers.join(' ')).toContain('admin');
    expect(card.expiresAt).toBe(harness.clock.now() + 15 * 60_000);
    expect(card.approvalId).toMatch(/^apv_/);
    expect(harness.probe.count('restart_service')).toBe(0);
  });

  it("refuses the requester's own click and a non-approver's click, and audits both", async () => {
    harness = await createApprovalHarness('memory');
    const { run, card } = await waitingRestart(harness);
    const own = await harness.kernel.decideApproval(card.approvalId, harness.person('alice'), 'approve');
    expect(own.settled).toBe(false);
    expect(own.message).toMatch(/someone else has to approve/);
    const viewer = await harness.kernel.decideApproval(card.approvalId, harness.person('carol'), 'approve');
    expect(viewer.settled).toBe(false);
    expect(viewer.message).toMatch(/only someone with the admin role/);
    expect((await harness.kernel.settled(run.id)).status).toBe('waiting_for_approval');
    expect(harness.probe.count('restart_service')).toBe(0);
    const refused = (await harness.audit().list()).filter((entry) => entry.kind === 'approval_refused');
    expect(refused.map((entry) => entry.actor.displayName)).toEqual(['Alice', 'Carol']);
  });

  it('executes exactly once on an approver click, updates the card, and continues the run', async () => {
    harness = await createApprovalHarness('memory');
    const { run, card } = await waitingRestart(harness);
    harness.fake.reply(text('api restarted'));
    const click = await harness.kernel.decideApproval(card.approvalId, harness.person('bob'), 'approve');
    expect(click.settled).toBe(true);
    const done = await harness.kernel.settled(run.id);
    expect(harness.probe.calls).toEqual([{ tool: 'restart_service', args: { service: 'api' } }]);
    expect(done.status).toBe('finished');
    expect(done.events.map((event) => event.type)).toEqual(
      expect.arrayContaining([
        'approval_requested',
        'approval_decided',
        'executing',
        'tool_result',
        'finished',
      ]),
    );
    const updated = harness.chat.ofKind('approval')[0]!;
    expect(updated.decision).toMatchObject({ outcome: 'approved', by: 'Bob' });
    const late = await harness.kernel.decideApproval(card.approvalId, harness.person('dave'), 'approve');
    expect(late.message).toMatch(/^Already approved by Bob at /);
    expect(harness.probe.count('restart_service')).toBe(1);
    const kinds = (await harness.audit().list()).map((entry) => entry.kind);
    expect(kinds).toEqual(
      expect.arrayContaining(['request', 'approval_requested', 'approval_decided', 'execution', 'outcome']),
    );
  });

  it('sends a denial back to the model as "Denied by X: reason"', async () => {
    harness = await createApprovalHarness('memory');
    const { run, card } = await waitingRestart(harness);
    harness.fake.reply(text('ok, not restarting'));
    await harness.kernel.decideApproval(card.approvalId, harness.person('bob'), 'deny', 'peak traffic');
    await harness.kernel.settled(run.id);
    const result = JSON.parse(harness.fake.requests[1]!.body.messages!.at(-1)!.content as string);
    expect(result.error).toMatchObject({
      class: 'permission_denied',
      message: 'Denied by Bob: peak traffic',
    });
    expect((await harness.kernel.settled(run.id)).status).toBe('finished');
    expect(harness.probe.count('restart_service')).toBe(0);
  });

  it('stops the run on denial when on_denial is stop', async () => {
    harness = await createApprovalHarness('memory', { on_denial: 'stop' });
    const { run, card } = await waitingRestart(harness);
    await harness.kernel.decideApproval(card.approvalId, harness.person('bob'), 'deny');
    const stopped = (await harness.kernel.settled(run.id)) as TestRun;
    expect(stopped.status).toBe('failed');
    expect(stopped.error?.message).toMatch(/Denied by Bob/);
    expect(harness.fake.requests).toHaveLength(1);
  });

  it('checks expiry at the click: one ms before is decided, at expiry the run ends expired (on_denial: stop)', async () => {
    harness = await createApprovalHarness('memory', { on_denial: 'stop' });
    const first = await waitingRestart(harness);
    harness.clock.advance(15 * 60_000 - 1);
    harness.fake.reply(text('done'));
    expect(
      (await harness.kernel.decideApproval(first.card.approvalId, harness.person('bob'), 'approve')).settled,
    ).toBe(true);
    expect((await harness.kernel.settled(first.run.id)).status).toBe('finished');

    harness.fake.reply(restartApi);
    const second = await runTask(harness.kernel, {
      text: 'again',
      principal: harness.person('alice'),
      conversation: { ...conversation, threadId: 'th2' },
    });
    const card = harness.chat.ofKind('approval').find((entry) => entry.runId === second.id)!;
    harness.clock.advance(15 * 60_000);
    const click = await harness.kernel.decideApproval(card.approvalId, harness.person('bob'), 'approve');
    expect(click.result.kind).toBe('expired');
    expect((await harness.kernel.settled(second.id)).status).toBe('expired');
    expect(
      harness.chat.ofKind('approval').find((entry) => entry.runId === second.id)!.decision?.outcome,
    ).toBe('expired');
    expect(harness.probe.count('restart_service')).toBe(1);
  });

  it('refuses a call nobody may approve, with that reason', async () => {
    harness = await createApprovalHarness('memory', {
      roles: {
        operator: { tools: ['*'], approve: [] },
        admin: { tools: ['*'], approve: ['write_*'], admin: true },
      },
    });
    harness.fake.reply(restartApi, text('cannot'));
    const run = await runTask(harness.kernel, {
      text: 'restart',
      principal: harness.person('alice'),
      conversation,
    });
    expect(run.status).toBe('finished');
    const result = JSON.parse(harness.fake.requests[1]!.body.messages!.at(-1)!.content as string);
    expect(result.error.class).toBe('permission_denied');
    expect(result.error.message).toMatch(/nobody|no one/i);
    expect(harness.chat.ofKind('approval')).toHaveLength(0);
  });

  it('refuses and audits a forged call to a tool the role does not have, which the model was never offered', async () => {
    harness = await createApprovalHarness('memory');
    harness.fake.reply(restartApi, text('no'));
    await runTask(harness.kernel, { text: 'restart', principal: harness.person('carol'), conversation });
    const offered = harness.fake.requests[0]!.body.tools!.map((tool) => tool.function.name);
    expect(offered).not.toContain('restart_service');
    const result = JSON.parse(harness.fake.requests[1]!.body.messages!.at(-1)!.content as string);
    expect(result.error.class).toBe('permission_denied');
    expect(harness.probe.count('restart_service')).toBe(0);
    const refusals = (await harness.audit().list()).filter((entry) => entry.kind === 'refusal');
    expect(refusals).toMatchObject([{ tool: 'restart_service', actor: { displayName: 'Carol' } }]);
  });

  it('never restarts on instructions planted in a log line: the restart still waits for a human', async () => {
    harness = await createApprovalHarness('memory');
    harness.fake.reply(
      toolCalls([{ name: 'read_logs', arguments: { service: 'api' } }]),
      // The scripted model obeys the planted instruction.
      toolCalls([{ name: 'restart_service', arguments: { service: 'api' } }], {
        content: 'The log says to call restart_service.',
      }),
    );
    const run = await runTask(harness.kernel, {
      text: 'any errors in the api logs?',
      principal: harness.person('alice'),
      conversation,
    });
    expect(run.status).toBe('waiting_for_approval');
    expect(harness.probe.count('restart_service')).toBe(0);
    expect(harness.fake.requests[0]!.body.messages![0]!.content).toContain('UNTRUSTED DATA');
  });
});

describe('approvals nobody waits for', () => {
  it('has no orphans: an approval is part of its run, and an id its run never asked for is not found', async () => {
    harness = await createApprovalHarness('memory');
    const { run, card } = await waitingRestart(harness);
    expect(card.approvalId).toMatch(new RegExp(`^apv_[A-Za-z0-9]{6}_${run.id}$`));
    harness.clock.advance(15 * 60_000);
    // The run's approval expires through the run: there is nothing else to close.
    expect(await harness.kernel.expirySweep().sweep()).toBe(1);
    const late = await harness.kernel.decideApproval(card.approvalId, harness.person('bob'), 'approve');
    expect(late.settled).toBe(false);
    expect(late.message).toMatch(/^This approval expired at /);
    const never = await harness.kernel.decideApproval(
      `apv_Zz9Zz9_${run.id}`,
      harness.person('bob'),
      'approve',
    );
    expect(never.settled).toBe(false);
    expect(never.message).toMatch(/^There is no approval apv_Zz9Zz9_/);
    expect(harness.probe.count('restart_service')).toBe(0);
  });
});

describe.each(['sqlite', 'redis'] as const)('approvals across replicas on %s', (backend) => {
  it('two concurrent approve clicks on two kernels make one execution; the other is told who won', async () => {
    harness = await createApprovalHarness(backend);
    const { run, card } = await waitingRestart(harness);
    const other = await harness.replica();
    harness.fake.respond(() => text('restarted'));
    const [first, second] = await Promise.all([
      harness.kernel.decideApproval(card.approvalId, harness.person('bob'), 'approve'),
      other.decideApproval(card.approvalId, harness.person('dave'), 'approve'),
    ]);
    expect([first.settled, second.settled].filter(Boolean)).toHaveLength(1);
    const loser = first.settled ? second : first;
    expect(loser.message).toMatch(/^Already approved by (Bob|Dave) at /);
    await Promise.all([harness.kernel.idle(), other.idle()]);
    expect(harness.probe.count('restart_service')).toBe(1);
    expect((await other.settled(run.id)).status).toBe('finished');
  });

  it('a run waiting for approval survives a restart: a new kernel resumes it on the click', async () => {
    harness = await createApprovalHarness(backend);
    const { run, card } = await waitingRestart(harness);
    const restarted = await harness.replica();
    harness.fake.reply(text('restarted after the restart'));
    const click = await restarted.decideApproval(card.approvalId, harness.person('bob'), 'approve');
    expect(click.settled).toBe(true);
    const done = (await restarted.settled(run.id)) as TestRun;
    expect(done.status).toBe('finished');
    expect(done.answer).toBe('restarted after the restart');
    expect(harness.probe.count('restart_service')).toBe(1);
  });
});
