// Approvals as part of the run: what the run holds, who may decide, expiry at the click, single use under races,
// and the binding to the exact call. Asserted on the run, its posted card and the audit log; no book to ask.
import { afterEach, describe, expect, it } from 'vitest';
import { bindingHash, runIdOfApproval, verifyBinding } from '../../agent/policy/approval-record.js';
import type { Run } from '../../agent/run.js';
import { type ApprovalHarness, createApprovalHarness } from '../approvals/approval-harness.js';
import { text, toolCalls } from '../fakes/openai-server.js';
import { runTask } from '../kernel/harness.js';

let h: ApprovalHarness;
afterEach(async () => h?.close());

const TTL = 15 * 60_000;
const conversation = {
  platform: 'playground' as const,
  channelId: 'ops',
  threadId: 't1',
  channelName: 'ops',
};

async function waiting(overrides: Parameters<typeof createApprovalHarness>[1] = {}) {
  h = await createApprovalHarness('memory', overrides);
  h.fake.reply(
    toolCalls([{ name: 'restart_service', arguments: { service: 'api' } }], {
      content: 'api is stuck; token xoxb-123456789012-abcdefghijkl',
    }),
  );
  const run = await runTask(h.kernel, {
    text: 'restart the api',
    principal: h.person('alice'),
    conversation,
  });
  if (run.status !== 'waiting_for_approval') throw new Error(`the run is ${run.status}`);
  return { run, approvalId: run.approval.approvalId };
}

const click = (approvalId: string, who: string, decision: 'approve' | 'deny' = 'approve', reason?: string) =>
  h.kernel.decideApproval(approvalId, h.person(who), decision, reason);

async function stored(runId: string): Promise<Run> {
  return h.kernel.get(runId);
}

describe('requesting', () => {
  it('keeps the binding, the approvers, the redacted reason and arguments with the run, and posts the card', async () => {
    const { run, approvalId } = await waiting();
    expect(runIdOfApproval(approvalId)).toBe(run.id);
    expect(run.approval).toMatchObject({
      bindingHash: bindingHash({
        runId: run.id,
        step: run.step,
        tool: 'restart_service',
        args: { service: 'api' },
        requester: h.person('alice'),
      }),
      approvers: { roles: ['admin'], identities: ['local:bob', 'local:dave'] },
      displayArgs: { service: 'api' },
      expiresAt: run.approval.requestedAt + TTL,
    });
    expect(run.approval.reason).toContain('[REDACTED]');
    expect(run.approval.reason).not.toContain('xoxb-');
    expect(h.chat.ofKind('approval')[0]).toMatchObject({
      approvalId,
      runId: run.id,
      tool: 'restart_service',
    });
    const entries = await h.audit().list();
    expect(entries.map((entry) => entry.kind)).toContain('approval_requested');
  });
});

describe('deciding', () => {
  it('lets an approver approve once: the run runs the call, the card says who, the audit records it', async () => {
    const { run, approvalId } = await waiting();
    h.fake.reply(text('Restarted the api.'));
    const approved = await click(approvalId, 'bob');
    expect(approved).toMatchObject({ settled: true, result: { kind: 'decided', decision: 'approve' } });
    expect(approved.message).toMatch(/^Approved by Bob at /);
    expect((await h.kernel.settled(run.id)).status).toBe('finished');
    expect(h.probe.count('restart_service')).toBe(1);
    const card = h.chat.ofKind('approval').find((entry) => entry.decision);
    expect(card?.decision).toMatchObject({ outcome: 'approved', by: 'Bob' });
    const decided = (await h.audit().list()).filter((entry) => entry.kind === 'approval_decided');
    expect(decided).toEqual([
      expect.objectContaining({
        approvalId,
        outcome: 'approved',
        actor: expect.objectContaining({ key: 'local:bob' }),
      }),
    ]);

    // A later click is told who decided, from the run's own events.
    const late = await click(approvalId, 'dave');
    expect(late.settled).toBe(false);
    expect(late.message).toMatch(/^Already approved by Bob at /);
    expect(h.probe.count('restart_service')).toBe(1);
  });

  it('records a denial with its reason, and the call does not run', async () => {
    const { run, approvalId } = await waiting();
    h.fake.reply(text('The restart was denied.'));
    const denied = await click(approvalId, 'bob', 'deny', 'not during the release');
    expect(denied.result).toMatchObject({ kind: 'decided', decision: 'deny' });
    await h.kernel.settled(run.id);
    expect(h.probe.count('restart_service')).toBe(0);
    const after = await stored(run.id);
    expect(after.events).toContainEqual(
      expect.objectContaining({
        type: 'approval_decided',
        decision: 'denied',
        by: 'local:bob',
        byName: 'Bob',
        reason: 'not during the release',
      }),
    );
  });

  it('reports an unknown or malformed id as not found, without touching any run', async () => {
    const { run } = await waiting();
    for (const id of [`apv_AAAAAA_${run.id}x`, 'apv_nonsense', 'approve:../../etc']) {
      const result = await click(id, 'bob');
      expect(result).toMatchObject({ settled: false, result: { kind: 'not_found' } });
    }
    expect((await stored(run.id)).status).toBe('waiting_for_approval');
  });
});

describe('refusals', () => {
  it('refuses self-approval, audits it, and leaves the approval open for someone else', async () => {
    const { approvalId } = await waiting();
    const self = await click(approvalId, 'alice');
    expect(self).toMatchObject({
      settled: false,
      message: 'You asked for this, so someone else has to approve it.',
    });
    h.fake.reply(text('Restarted.'));
    expect((await click(approvalId, 'dave')).settled).toBe(true);
    const kinds = (await h.audit().list())
      .map((entry) => entry.kind)
      .filter((kind) => kind.startsWith('approval_'));
    expect(kinds).toEqual(['approval_requested', 'approval_refused', 'approval_decided']);
  });

  it('lets the requester withdraw (deny) their own request', async () => {
    const { approvalId } = await waiting();
    h.fake.reply(text('Not restarted.'));
    expect((await click(approvalId, 'alice', 'deny')).result).toMatchObject({
      kind: 'decided',
      decision: 'deny',
    });
  });

  it('allows self-approval when the settings say so', async () => {
    const { approvalId } = await waiting({
      allow_self_approval: true,
      identities: { 'local:alice': { roles: ['admin'], display_name: 'Alice' } },
    });
    h.fake.reply(text('Restarted.'));
    expect((await click(approvalId, 'alice')).result).toMatchObject({ kind: 'decided' });
  });

  it('refuses a non-approver politely, for approve and deny, without using the approval up', async () => {
    const { run, approvalId } = await waiting();
    const refused = await click(approvalId, 'carol');
    expect(refused.message).toBe(
      'Sorry, only someone with the admin role may approve or deny restart_service; you have viewer.',
    );
    expect((await click(approvalId, 'carol', 'deny')).settled).toBe(false);
    expect((await stored(run.id)).status).toBe('waiting_for_approval');
  });
});

describe('expiry, checked at the click', () => {
  it('accepts a click one millisecond before expiry', async () => {
    const { approvalId } = await waiting();
    h.clock.advance(TTL - 1);
    h.fake.reply(text('Restarted.'));
    expect((await click(approvalId, 'bob')).result).toMatchObject({ kind: 'decided' });
  });

  it('expires at the deadline: the first click ends the wait, later clicks are told when', async () => {
    const { run, approvalId } = await waiting({ on_denial: 'stop' });
    h.clock.advance(TTL);
    const first = await click(approvalId, 'bob');
    expect(first).toMatchObject({ settled: true, result: { kind: 'expired', recorded: true } });
    expect(first.message).toMatch(/^This approval expired at .*; ask again if it is still needed\.$/);
    expect((await stored(run.id)).status).toBe('expired');
    const later = await click(approvalId, 'dave');
    expect(later).toMatchObject({ settled: false, result: { kind: 'expired', recorded: false } });
    expect((await h.audit().list()).filter((entry) => entry.kind === 'approval_expired')).toHaveLength(1);
    expect(h.probe.count('restart_service')).toBe(0);
  });
});

describe('concurrent clicks', () => {
  it('two approvers at once on one kernel: one decision, the other names the winner, one execution', async () => {
    const { run, approvalId } = await waiting();
    h.fake.reply(text('Restarted.'));
    const results = await Promise.all([click(approvalId, 'bob'), click(approvalId, 'dave')]);
    expect(results.filter((result) => result.result.kind === 'decided')).toHaveLength(1);
    const lost = results.find((result) => result.result.kind !== 'decided')!;
    expect(lost.message).toMatch(/^Already approved by (Bob|Dave) at /);
    await h.kernel.settled(run.id);
    expect(h.probe.count('restart_service')).toBe(1);
  });

  it('the same person double-clicking decides once', async () => {
    const { run, approvalId } = await waiting();
    h.fake.reply(text('Restarted.'));
    const results = await Promise.all([click(approvalId, 'bob'), click(approvalId, 'bob')]);
    expect(results.filter((result) => result.settled)).toHaveLength(1);
    await h.kernel.settled(run.id);
    expect(h.probe.count('restart_service')).toBe(1);
  });
});

describe('binding hash', () => {
  const call = {
    runId: 'run_1',
    step: 2,
    tool: 'restart_service',
    args: { service: 'api', force: false },
    requester: { platform: 'playground' as const, userId: 'alice' },
  };

  it('ignores key order in the arguments', () => {
    expect(bindingHash(call)).toBe(bindingHash({ ...call, args: { force: false, service: 'api' } }));
  });

  it('changes with the run, step, tool, arguments or requester, and an approval without one binds nothing', () => {
    const approval = { bindingHash: bindingHash(call) };
    expect(verifyBinding(approval, call)).toBe(true);
    for (const changed of [
      { ...call, runId: 'run_2' },
      { ...call, step: 3 },
      { ...call, tool: 'deploy_app' },
      { ...call, args: { service: 'worker', force: false } },
      { ...call, requester: { platform: 'playground' as const, userId: 'bob' } },
    ])
      expect(verifyBinding(approval, changed)).toBe(false);
    expect(verifyBinding({}, call)).toBe(false);
  });
});
