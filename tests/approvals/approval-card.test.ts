// What an approval card says, built by the kernel: who else may approve, groups by name, and what will happen.
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { OutboundMessage } from '../../agent/chat-port.js';
import { describeApprovers } from '../../agent/policy/approver-set.js';
import { PermissionSettingsSchema } from '../../agent/policy/permission-settings.js';
import type { Principal } from '../../agent/principal.js';
import { defineTool } from '../../agent/tool.js';
import { messageView } from '../../bot/chat/message-view.js';
import type { MessageView } from '../../bot/chat/message-view-types.js';
import { VIEW_LIMITS } from '../../bot/chat/view-limits.js';
import { text, toolCalls } from '../fakes/openai-server.js';
import { runTask } from '../kernel/harness.js';
import { type ApprovalHarness, createApprovalHarness, permissions } from './approval-harness.js';

let harness: ApprovalHarness;
afterEach(async () => harness?.close());

const conversation = { platform: 'playground' as const, channelId: 'ops', threadId: 'th1' };
const restartApi = toolCalls([{ name: 'restart_service', arguments: { service: 'api' } }]);

async function cardFor(h: ApprovalHarness, who: string) {
  h.fake.reply(restartApi);
  const run = await runTask(h.kernel, { text: 'restart the api', principal: h.person(who), conversation });
  expect(run.status).toBe('waiting_for_approval');
  return { run, card: h.chat.ofKind('approval')[0]! };
}

function approversField(card: OutboundMessage): string | undefined {
  const shown: MessageView = messageView(card, { now: harness.clock.now(), limits: VIEW_LIMITS.slack });
  return shown.blocks
    .flatMap((block) => (block.type === 'fields' ? block.fields : []))
    .find((field) => field.label === 'Approvers')?.value;
}

describe('the approvers on a card', () => {
  it("never lists the requester: Bob's own request names only Dave", async () => {
    harness = await createApprovalHarness('memory');
    const { card } = await cardFor(harness, 'bob');
    expect(card.requester).toBe('Bob');
    expect(card.approvers).toEqual(['someone with the admin role (Dave)']);
    expect(approversField(card)).toBe('someone with the admin role (Dave)');
  });

  it('says so when nobody but the requester holds the role (self-approval allowed)', async () => {
    harness = await createApprovalHarness('memory', {
      allow_self_approval: true,
      identities: { 'local:bob': { roles: ['admin'], display_name: 'Bob' } },
    });
    const { card } = await cardFor(harness, 'bob');
    expect(card.approvers).toEqual(['nobody else may approve this']);
    expect(approversField(card)).toBe('nobody else may approve this');
  });

  it('names a group by its display name, and one the requester is in as "other than" them', async () => {
    harness = await createApprovalHarness('memory', {
      identities: {
        ...PermissionSettingsSchema.parse(permissions).identities,
        'discord_role:42': { roles: ['admin'], display_name: '@sre-oncall' },
        'discord_role:77': { roles: ['admin'] },
        'discord_role:5': { roles: ['operator'] },
      },
    });
    // Erin holds the Discord roles 5 and 42; the kernel resolves what they give her from its settings.
    const requester: Principal = {
      platform: 'discord',
      userId: '1001',
      displayName: 'Erin',
      roles: [],
      groups: ['5', '42'],
    };
    harness.fake.reply(restartApi);
    const run = await runTask(harness.kernel, {
      text: 'restart the api',
      principal: requester,
      conversation: { platform: 'discord', channelId: 'c1', threadId: 't1' },
    });
    expect(run.status).toBe('waiting_for_approval');
    const card = harness.chat.ofKind('approval')[0]!;
    expect(card.approvers).toEqual([
      'someone with the admin role (Bob, Dave, @sre-oncall other than Erin, members of 77)',
    ]);
  });
});

describe('describeApprovers on a record made before names', () => {
  it('names groups and local people from their keys, never showing a settings key for them', () => {
    const approvers = {
      roles: ['admin'],
      identities: ['slack_group:SADMINS', 'discord_role:42', 'local:dave', 'local:bob'],
      includesDefaultRole: false,
    };
    const bob = { platform: 'cli' as const, userId: 'bob', displayName: 'Bob' };
    expect(describeApprovers(approvers, bob)).toBe(
      'someone with the admin role (members of SADMINS, members of 42, Dave)',
    );
  });
});

describe('what will happen, on the card', () => {
  const rollback = defineTool({
    name: 'rollback_release',
    description: 'Roll a service back to its previous release. Use after a bad deploy.',
    input: z.object({ service: z.string(), token: z.string() }),
    risk: 'danger',
    // Declared, or the call is refused: the card would hide its value behind redaction.
    secretParameters: ['token'],
    impact: 'restarts the api; about 20 s of 502s',
    describeCall: (args) => `deploy rollback --service ${args.service} --token ${args.token}`,
    execute: async () => ({ ok: true, summary: 'rolled back' }),
  });

  it('shows the exact command, its secret masked, and the impact, before and after the decision', async () => {
    harness = await createApprovalHarness('memory', {}, { tools: [rollback] });
    harness.fake.reply(
      toolCalls([
        { name: 'rollback_release', arguments: { service: 'api', token: 'xoxb-1234567890-abcdefghij' } },
      ]),
    );
    const run = await runTask(harness.kernel, {
      text: 'roll back the api',
      principal: harness.person('alice'),
      conversation,
    });
    const card = harness.chat.ofKind('approval')[0]!;
    expect(card.willRun).toBe('deploy rollback --service api --token ‹secret, 26 chars›');
    expect(card.freeText).toEqual(['service']);
    expect(card.impact).toBe('restarts the api; about 20 s of 502s');
    const waiting = await harness.kernel.get(run.id);
    expect(waiting.status === 'waiting_for_approval' && waiting.approval.willRun).toBe(card.willRun);
    harness.fake.reply(text('Rolled back.'));
    await harness.kernel.decideApproval(card.approvalId, harness.person('bob'), 'approve');
    await harness.kernel.settled(run.id);
    const decided = harness.chat.ofKind('approval')[0]!;
    expect(decided.decision?.outcome).toBe('approved');
    expect(decided).toMatchObject({ willRun: card.willRun, impact: card.impact });
  });

  it('leaves both out for a tool that says neither', async () => {
    harness = await createApprovalHarness('memory');
    const { card } = await cardFor(harness, 'alice');
    expect(card).not.toHaveProperty('willRun');
    expect(card).not.toHaveProperty('impact');
  });
});
