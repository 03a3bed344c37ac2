// The two-person rule from a role's rules: a role's `two_person` makes its members' calls of a tool need two
// approvers even when the tool needs one. Through the kernel, asserted on the run, its card, grants and refusals.
import { afterEach, describe, expect, it } from 'vitest';
import type { Conversation } from '../../agent/conversation.js';
import { ApprovalGrants, newGrantId } from '../../agent/policy/approval-grants.js';
import type { PermissionSettingsInput } from '../../agent/policy/permission-settings.js';
import type { Run } from '../../agent/run.js';
import { stableJson } from '../../agent/stable-json.js';
import { approvalProgressText } from '../../bot/chat/message-view.js';
import { text, toolCalls } from '../fakes/openai-server.js';
import { runTask } from '../kernel/harness.js';
import { type ApprovalHarness, createApprovalHarness, permissions } from './approval-harness.js';

let h: ApprovalHarness;
afterEach(async () => h?.close());

const HOUR = 60 * 60_000;
const { roles, identities } = permissions;

/** Alice (operator) is also in sre, whose two_person names restart_* (in `channels` when given). */
function sreRule(channels?: string[]): Partial<PermissionSettingsInput> {
  return {
    roles: { ...roles, sre: { two_person: ['restart_*'], ...(channels ? { channels } : {}) } },
    identities: { ...identities, 'local:alice': { roles: ['operator', 'sre'], display_name: 'Alice' } },
  };
}

function inChannel(channel: string): Conversation {
  return { platform: 'playground', channelId: channel, threadId: `t-${channel}`, channelName: channel };
}

/** Alice asks for a restart of the api in `channel`; `answer` is the model's next reply, when the run goes on. */
async function restart(channel = 'ops', answer?: string) {
  h.fake.reply(toolCalls([{ name: 'restart_service', arguments: { service: 'api' } }]));
  if (answer !== undefined) h.fake.reply(text(answer));
  return runTask(h.kernel, {
    text: 'restart the api',
    principal: h.person('alice'),
    conversation: inChannel(channel),
  });
}

function waitingApproval(run: Run) {
  if (run.status !== 'waiting_for_approval') throw new Error(`the run is ${run.status}`);
  return run.approval;
}

const card = () => h.chat.ofKind('approval').at(-1)!;
const click = (approvalId: string, who: string, grantForMs?: number) =>
  h.kernel.decideApproval(
    approvalId,
    h.person(who),
    'approve',
    undefined,
    grantForMs === undefined ? {} : { grantForMs },
  );

describe("a role's two_person", () => {
  it('makes a tool that needs one approver need two: the card says 0 of 2, the first counts, the second runs', async () => {
    h = await createApprovalHarness('memory', sreRule());
    const run = await restart();
    const pending = waitingApproval(run);
    expect(pending).toMatchObject({ approvals: 2, approvedBy: [] });
    expect(card().progress).toEqual({ needed: 2, approvedBy: [] });
    expect(approvalProgressText(card().progress!)).toBe('0 of 2 approvals: it needs 2 different approvers');

    const first = await click(pending.approvalId, 'bob');
    expect(first.result).toMatchObject({ kind: 'counted', count: 1, needed: 2 });
    expect(first.message).toBe(
      'Approved by Bob: 1 of 2 approvals. It needs one more approver before it runs.',
    );
    expect(h.probe.count('restart_service')).toBe(0);
    expect(card().progress).toEqual({ needed: 2, approvedBy: ['Bob'] });

    h.fake.reply(text('api restarted'));
    const second = await click(pending.approvalId, 'dave');
    expect(second.message).toMatch(/^Approved by Bob and Dave at /);
    expect((await h.kernel.settled(run.id)).status).toBe('finished');
    expect(h.probe.count('restart_service')).toBe(1);
  });

  it('does not apply where the role does not (its channels): there one approval runs the call', async () => {
    h = await createApprovalHarness('memory', sreRule(['#prod']));
    const run = await restart('ops');
    const elsewhere = waitingApproval(run);
    expect(elsewhere.approvals).toBe(1);
    expect(card().progress).toBeUndefined();
    h.fake.reply(text('api restarted'));
    expect((await click(elsewhere.approvalId, 'bob')).result).toMatchObject({ kind: 'decided' });
    expect((await h.kernel.settled(run.id)).status).toBe('finished');
    expect(h.probe.count('restart_service')).toBe(1);

    // In #prod the same call by the same person needs two.
    expect(waitingApproval(await restart('prod')).approvals).toBe(2);
  });

  it('refuses to approve such a call for a while, and says it is the role that needs two approvers', async () => {
    h = await createApprovalHarness('memory', sreRule());
    const run = await restart();
    const { approvalId } = waitingApproval(run);
    const refused = await click(approvalId, 'bob', HOUR);
    expect(refused).toMatchObject({ settled: false, result: { kind: 'refused' } });
    expect(refused.message).toBe(
      "restart_service cannot be approved for a while: it needs two approvers (role sre's two_person), so each " +
        'call is approved on its own. Nothing was approved.',
    );
    expect(waitingApproval(await h.kernel.get(run.id)).approvedBy).toEqual([]);
    // The second approver asking for a grant is refused the same way: nothing is counted or granted.
    await click(approvalId, 'bob');
    expect((await click(approvalId, 'dave', HOUR)).message).toBe(refused.message);
    expect(await h.kernel.listGrants()).toEqual([]);
    expect(h.probe.count('restart_service')).toBe(0);
  });

  it('asks again even when a grant made before the rule covers the call', async () => {
    h = await createApprovalHarness('memory', sreRule());
    const now = h.clock.now();
    await new ApprovalGrants(h.stores[0]!, h.clock).create({
      id: newGrantId(),
      tool: 'restart_service',
      requester: { key: 'local:alice', displayName: 'Alice' },
      channel: { platform: 'playground', channelId: 'ops', channelName: 'ops' },
      args: stableJson({ service: 'api' }),
      grantedBy: { key: 'local:bob', displayName: 'Bob' },
      grantedAt: now,
      until: now + HOUR,
      approvalId: 'apv_before_rule',
    });
    const run = await restart();
    expect(waitingApproval(run).approvals).toBe(2);
    expect(h.probe.count('restart_service')).toBe(0);
  });

  it('refuses the call at once when only one person besides the requester may approve it', async () => {
    h = await createApprovalHarness('memory', {
      ...sreRule(),
      identities: {
        'local:alice': { roles: ['operator', 'sre'], display_name: 'Alice' },
        'local:bob': identities['local:bob'],
      },
    });
    const run = await restart('ops', 'I cannot restart the api.');
    expect(run.status).toBe('finished');
    expect(h.chat.ofKind('approval')).toEqual([]);
    expect(h.probe.count('restart_service')).toBe(0);
    const reason =
      "restart_service needs two approvers (role sre's two_person), but only Bob may approve it besides you, " +
      'so it cannot run.';
    const refusal = h.chat.ofKind('result').find((message) => message.refused);
    expect(refusal?.text).toBe(`restart_service was refused, and did not run: ${reason}`);
  });
});
