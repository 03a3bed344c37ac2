// The two-person rule (issue 26, part 2): a tool with `approvals: 2` runs only after two different approvers,
// neither of them the requester, approved it. Through the kernel, asserted on the run, its card and the audit log.
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { OutboundMessage } from '../../agent/chat-port.js';
import { SELF_NEVER_COUNTS } from '../../agent/policy/two-person-rule.js';
import type { Run } from '../../agent/run.js';
import { transition } from '../../agent/run-machine.js';
import { defineTool } from '../../agent/tool.js';
import { formatMessage } from '../../bot/cli/terminal-output.js';
import { renderDiscordOutbound } from '../../bot/discord/discord-render.js';
import { renderOutbound } from '../../bot/slack/slack-render.js';
import { CommandSettingsSchema } from '../../tools/tool-settings-schema.js';
import { text, toolCalls } from '../fakes/openai-server.js';
import { runTask, ToolProbe } from '../kernel/harness.js';
import { sampleEvents, sampleRuns } from '../kernel/run-machine-samples.js';
import {
  type ApprovalHarness,
  type Backend,
  createApprovalHarness,
  permissions,
} from './approval-harness.js';

let h: ApprovalHarness;
afterEach(async () => h?.close());

const conversation = {
  platform: 'playground' as const,
  channelId: 'ops',
  threadId: 't1',
  channelName: 'ops',
};
const ONE_MORE = 'You have approved this already; it needs one more approver.';

function deleteVolume(probe: ToolProbe) {
  return defineTool({
    name: 'delete_volume',
    description: 'Delete a storage volume. Use only when asked to delete one. Cannot be undone.',
    input: z.object({ volume: z.string().describe('The volume to delete') }),
    risk: 'danger',
    approvals: 2,
    execute: (_ctx, input) =>
      probe.track('delete_volume', input, async () => ({ ok: true, summary: `deleted ${input.volume}` })),
  });
}

let probe: ToolProbe;

async function waiting(
  options: {
    backend?: Backend;
    requester?: string;
    overrides?: Parameters<typeof createApprovalHarness>[1];
  } = {},
) {
  probe = new ToolProbe();
  h = await createApprovalHarness(options.backend ?? 'memory', options.overrides ?? {}, {
    tools: [deleteVolume(probe)],
  });
  h.fake.reply(
    toolCalls([{ name: 'delete_volume', arguments: { volume: 'vol-1' } }], { content: 'as asked' }),
  );
  const run = await runTask(h.kernel, {
    text: 'delete vol-1',
    principal: h.person(options.requester ?? 'alice'),
    conversation,
  });
  if (run.status !== 'waiting_for_approval') throw new Error(`the run is ${run.status}`);
  return { run, approvalId: run.approval.approvalId };
}

const click = (approvalId: string, who: string, decision: 'approve' | 'deny' = 'approve', reason?: string) =>
  h.kernel.decideApproval(approvalId, h.person(who), decision, reason);

const card = () => h.chat.ofKind('approval')[0]!;

async function decidedOutcomes(): Promise<string[]> {
  return (await h.audit().list())
    .filter((entry) => entry.kind === 'approval_decided')
    .map((entry) => entry.outcome ?? '');
}

function waitingApproval(run: Run) {
  if (run.status !== 'waiting_for_approval') throw new Error(`the run is ${run.status}`);
  return run.approval;
}

/** Everything a person reads on the card, as Slack and Discord render it. */
function rendered(message: OutboundMessage, now: number) {
  return {
    slack: JSON.stringify(renderOutbound(message, { now }).messages),
    discord: JSON.stringify(renderDiscordOutbound(message, { now }).messages),
  };
}

describe('two approvers', () => {
  it('counts the first approval on the run and the card, and runs the call once at the second', async () => {
    const { run, approvalId } = await waiting();
    expect(run.approval).toMatchObject({ approvals: 2, approvedBy: [] });

    const first = await click(approvalId, 'bob');
    expect(first).toMatchObject({ settled: true, result: { kind: 'counted', count: 1, needed: 2 } });
    expect(first.message).toBe(
      'Approved by Bob: 1 of 2 approvals. It needs one more approver before it runs.',
    );
    const stored = await h.kernel.get(run.id);
    expect(waitingApproval(stored).approvedBy).toEqual([
      { key: 'local:bob', displayName: 'Bob', at: h.clock.now() },
    ]);
    expect(probe.count('delete_volume')).toBe(0);
    expect(card()).toMatchObject({ progress: { needed: 2, approvedBy: ['Bob'] } });
    expect(card().decision).toBeUndefined();

    h.fake.reply(text('Deleted vol-1.'));
    const second = await click(approvalId, 'dave');
    expect(second.settled).toBe(true);
    expect(second.message).toMatch(/^Approved by Bob and Dave at /);
    expect((await h.kernel.settled(run.id)).status).toBe('finished');
    expect(probe.count('delete_volume')).toBe(1);
    expect(card().decision).toMatchObject({ outcome: 'approved', by: 'Bob and Dave' });
    expect(await decidedOutcomes()).toEqual(['approved_1_of_2', 'approved']);

    // A late click hears of both, and nothing runs again.
    const late = await click(approvalId, 'bob');
    expect(late.message).toMatch(/^Already approved by Bob and Dave at /);
    expect(probe.count('delete_volume')).toBe(1);
  });

  it('shows "1 of 2 approvals: Bob" on the card in Slack, Discord and the terminal, and keeps its buttons', async () => {
    const { approvalId } = await waiting();
    await click(approvalId, 'bob');
    const { slack, discord } = rendered(card(), h.clock.now());
    for (const view of [slack, discord]) {
      expect(view).toContain('1 of 2 approvals: Bob');
      expect(view).toContain(`approve:${approvalId}`);
      expect(view).toContain(`deny:${approvalId}`);
    }
    expect(formatMessage(card())).toContain('1 of 2 approvals: Bob');
  });

  it('counts the same approver twice once, and says it needs one more', async () => {
    const { run, approvalId } = await waiting();
    await click(approvalId, 'bob');
    const before = await h.kernel.get(run.id);
    const again = await click(approvalId, 'bob');
    expect(again).toMatchObject({ settled: false, message: ONE_MORE, result: { kind: 'refused' } });
    const after = await h.kernel.get(run.id);
    expect(waitingApproval(after).approvedBy).toHaveLength(1);
    expect(after.events).toEqual(before.events);
    expect(probe.count('delete_volume')).toBe(0);
    expect(await decidedOutcomes()).toEqual(['approved_1_of_2']);
  });

  it('never counts the requester, even where self-approval is allowed, and says why', async () => {
    // Erin is there so that two people besides Bob may approve: with Dave alone the call is refused at once.
    const identities = {
      ...permissions.identities,
      'local:erin': { roles: ['admin'], display_name: 'Erin' },
    };
    const { run, approvalId } = await waiting({
      requester: 'bob',
      overrides: { allow_self_approval: true, identities },
    });
    const self = await click(approvalId, 'bob');
    expect(self).toMatchObject({ settled: false, message: SELF_NEVER_COUNTS });
    expect(self.message).toContain('two-person rule');
    expect(waitingApproval(await h.kernel.get(run.id)).approvedBy).toEqual([]);

    // Dave's approval is then only the first of two: Bob's own click made no difference.
    const dave = await click(approvalId, 'dave');
    expect(dave.result).toMatchObject({ kind: 'counted', count: 1 });
    expect((await h.kernel.get(run.id)).status).toBe('waiting_for_approval');
    expect(probe.count('delete_volume')).toBe(0);
    const refused = (await h.audit().list()).filter((entry) => entry.kind === 'approval_refused');
    expect(refused).toEqual([expect.objectContaining({ reason: SELF_NEVER_COUNTS })]);
  });

  it('ends at a deny by the second approver after the first approved', async () => {
    const { run, approvalId } = await waiting();
    await click(approvalId, 'bob');
    h.fake.reply(text('The deletion was denied.'));
    const denied = await click(approvalId, 'dave', 'deny', 'not today');
    expect(denied.result).toMatchObject({ kind: 'decided', decision: 'deny' });
    expect(denied.message).toMatch(/^Denied by Dave at /);
    await h.kernel.settled(run.id);
    expect(probe.count('delete_volume')).toBe(0);
    expect(card().decision).toMatchObject({ outcome: 'denied', by: 'Dave', reason: 'not today' });
    expect(await decidedOutcomes()).toEqual(['approved_1_of_2', 'denied']);
    expect((await click(approvalId, 'alice')).message).toMatch(/^Already denied by Dave/);
  });

  it('keeps the first approval across a restart: a new kernel over the same SQLite file completes it', async () => {
    const { run, approvalId } = await waiting({ backend: 'sqlite' });
    expect((await click(approvalId, 'bob')).result.kind).toBe('counted');

    const restarted = await h.replica();
    h.fake.reply(text('Deleted vol-1.'));
    const second = await restarted.decideApproval(approvalId, h.person('dave'), 'approve');
    expect(second.message).toMatch(/^Approved by Bob and Dave at /);
    expect((await restarted.settled(run.id)).status).toBe('finished');
    expect(probe.count('delete_volume')).toBe(1);
    expect(card().decision).toMatchObject({ outcome: 'approved', by: 'Bob and Dave' });
  });
});

describe('two approvers and a grant', () => {
  it('makes the grant at the second approval of a tool with grants: true, and says the first made none', async () => {
    probe = new ToolProbe();
    const granted = defineTool({
      name: 'delete_volume',
      description: 'Delete a storage volume. Use only when asked to delete one. Cannot be undone.',
      input: z.object({ volume: z.string().describe('The volume to delete') }),
      risk: 'danger',
      approvals: 2,
      grants: true,
      execute: (_ctx, input) =>
        probe.track('delete_volume', input, async () => ({ ok: true, summary: `deleted ${input.volume}` })),
    });
    h = await createApprovalHarness('memory', {}, { tools: [granted] });
    const ask = async () => {
      h.fake.reply(
        toolCalls([{ name: 'delete_volume', arguments: { volume: 'vol-1' } }], { content: 'as asked' }),
        text('Deleted vol-1.'),
      );
      return runTask(h.kernel, { text: 'delete vol-1', principal: h.person('alice'), conversation });
    };
    const run = await ask();
    if (run.status !== 'waiting_for_approval') throw new Error(`the run is ${run.status}`);
    const forAnHour = { grantForMs: 60 * 60_000 };
    const first = await h.kernel.decideApproval(
      run.approval.approvalId,
      h.person('bob'),
      'approve',
      undefined,
      forAnHour,
    );
    expect(first.message).toContain('No grant was made: the approval that lets it run may make one.');
    expect(first.grant).toBeUndefined();
    expect(await h.kernel.listGrants()).toEqual([]);
    const second = await h.kernel.decideApproval(
      run.approval.approvalId,
      h.person('dave'),
      'approve',
      undefined,
      forAnHour,
    );
    expect(second.grant?.grantedBy.displayName).toBe('Dave');
    expect((await h.kernel.settled(run.id)).status).toBe('finished');
    // The same call again runs under Dave's grant, with no card.
    const again = await ask();
    expect((await h.kernel.settled(again.id)).status).toBe('finished');
    expect(probe.count('delete_volume')).toBe(2);
    expect(h.chat.ofKind('approval')).toHaveLength(1);
  });
});

describe('the transition', () => {
  const waitingForTwo = {
    ...sampleRuns.waiting_for_approval,
    approval: { ...sampleRuns.waiting_for_approval.approval, approvals: 2 as const },
  };

  it('records an approval without deciding it, updates the card, and ignores the same approver again', () => {
    const counted = transition(waitingForTwo, sampleEvents.approval_counted);
    if (!counted.ok) throw new Error(counted.refusal.message);
    expect(counted.run.status).toBe('waiting_for_approval');
    expect(waitingApproval(counted.run).approvedBy).toEqual([
      { key: 'slack:U2', displayName: 'Bob', at: sampleEvents.approval_counted.at },
    ]);
    expect(counted.effects).toContainEqual({
      kind: 'update',
      messageId: 'm_card',
      message: expect.objectContaining({ progress: { needed: 2, approvedBy: ['Bob'] } }),
    });
    const again = transition(counted.run, sampleEvents.approval_counted);
    expect(again).toMatchObject({ ok: true, run: counted.run, effects: [] });
  });

  it('refuses a count for another approval', () => {
    const other = transition(waitingForTwo, { ...sampleEvents.approval_counted, approvalId: 'apv_other' });
    expect(other).toMatchObject({ ok: false, refusal: { code: 'other_approval' } });
  });
});

describe('settings', () => {
  it('takes approvals 1 or 2 on a tool and a configured command, 1 by default', () => {
    expect(() => defineTool({ ...deleteVolume(new ToolProbe()), approvals: 3 as 2 })).toThrow(
      /approvals must be 1 or 2/,
    );
    const command = { description: 'Says nothing and succeeds.', argv: ['/bin/true'] };
    expect(CommandSettingsSchema.parse(command).approvals).toBe(1);
    expect(CommandSettingsSchema.parse({ ...command, approvals: 2 }).approvals).toBe(2);
    expect(CommandSettingsSchema.safeParse({ ...command, approvals: 3 }).success).toBe(false);
  });
});
