// Approval grants (issue 26, part 2): an approver approves "for a while"; while the grant lasts, the same tool for
// the same requester in the same channel with the same arguments runs without a new card. Through the kernel.
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { Conversation } from '../../agent/conversation.js';
import { defineTool, takesGrants } from '../../agent/tool.js';
import { text, toolCalls } from '../fakes/openai-server.js';
import { runTask, ToolProbe } from '../kernel/harness.js';
import { type ApprovalHarness, createApprovalHarness } from './approval-harness.js';

let h: ApprovalHarness;
afterEach(async () => h?.close());

const HOUR = 60 * 60_000;
let thread = 0;

function inChannel(channelId = 'ops'): Conversation {
  thread += 1;
  return { platform: 'playground', channelId, threadId: `th${thread}`, channelName: channelId };
}

/**
 * `who` asks for a restart of `service` in `channelId`; the run waits for approval, or (`covered`) runs under a
 * grant and answers.
 */
async function restart(who = 'alice', service = 'api', channelId = 'ops', covered = false) {
  h.fake.reply(toolCalls([{ name: 'restart_service', arguments: { service } }]));
  if (covered) h.fake.reply(text(`${service} restarted`));
  const cards = h.chat.ofKind('approval').length;
  const run = await runTask(h.kernel, {
    text: `restart ${service}`,
    principal: h.person(who),
    conversation: inChannel(channelId),
  });
  return { run, newCards: h.chat.ofKind('approval').slice(cards) };
}

/** Alice's restart of the api, approved by Bob for an hour. */
async function granted() {
  const { run, newCards } = await restart();
  expect(run.status).toBe('waiting_for_approval');
  h.fake.reply(text('api restarted'));
  const click = await h.kernel.decideApproval(
    newCards[0]!.approvalId,
    h.person('bob'),
    'approve',
    undefined,
    {
      grantForMs: HOUR,
    },
  );
  expect(click.settled).toBe(true);
  expect(click.message).toContain('Granted until 01:00 UTC');
  expect((await h.kernel.settled(run.id)).status).toBe('finished');
  expect(h.probe.count('restart_service')).toBe(1);
  return click.grant!;
}

function slowTool(probe: ToolProbe, name: string, options: { grants?: boolean; approvals?: 2 }) {
  return defineTool({
    name,
    description: 'Drop a cache. Use when it is stale. Do not use to restart anything.',
    input: z.object({ cache: z.string().describe('Which cache') }),
    risk: 'danger',
    ...options,
    execute: (_ctx, input) => probe.track(name, input, async () => ({ ok: true, summary: 'dropped' })),
  });
}

describe.each(['memory', 'sqlite', 'redis'] as const)('approval grants on %s', (backend) => {
  it('covers the matching second call: no card, it runs once, and says whose grant it ran under', async () => {
    h = await createApprovalHarness(backend);
    const grant = await granted();
    expect(grant).toMatchObject({ tool: 'restart_service', requester: { key: 'local:alice' } });
    const { run, newCards } = await restart('alice', 'api', 'ops', true);
    expect(newCards).toEqual([]);
    expect(run.status).toBe('finished');
    expect(h.probe.count('restart_service')).toBe(2);
    const results = h.chat.ofKind('result').map((card) => card.text);
    expect(results.filter((line) => line.startsWith('restart_service'))).toEqual([
      'restart_service (approved by Bob) succeeded: restarted api',
      "restart_service (under Bob's grant until 01:00 UTC) succeeded: restarted api",
    ]);
    const lines = h.chat.ofKind('text').map((line) => line.text);
    expect(lines).toContain(
      "restart_service: run under Bob's grant (until 01:00 UTC), without a new approval.",
    );
    const audit = await h.audit().list();
    expect(audit.filter((entry) => entry.kind === 'grant_created')).toHaveLength(1);
    expect(audit.filter((entry) => entry.kind === 'grant_used')).toMatchObject([
      { runId: run.id, tool: 'restart_service', actor: { key: 'local:alice' }, approvalId: grant.approvalId },
    ]);
    expect(await h.kernel.listGrants()).toEqual([grant]);
  });

  it('does not cover other arguments, another requester or another channel: each gets a card', async () => {
    h = await createApprovalHarness(backend);
    await granted();
    for (const [who, service, channel] of [
      ['alice', 'worker', 'ops'],
      ['dave', 'api', 'ops'],
      ['alice', 'api', 'dev'],
    ] as const) {
      const { run, newCards } = await restart(who, service, channel);
      expect([who, service, channel, run.status]).toEqual([who, service, channel, 'waiting_for_approval']);
      expect(newCards).toHaveLength(1);
    }
    expect(h.probe.count('restart_service')).toBe(1);
    expect((await h.audit().list()).filter((entry) => entry.kind === 'grant_used')).toEqual([]);
  });

  it('ends at its expiry', async () => {
    h = await createApprovalHarness(backend);
    await granted();
    h.clock.advance(HOUR);
    const { run, newCards } = await restart();
    expect(run.status).toBe('waiting_for_approval');
    expect(newCards).toHaveLength(1);
    expect(await h.kernel.listGrants()).toEqual([]);
  });

  it('ends on revoke, by an approver of the tool only, and the revoke is audited', async () => {
    h = await createApprovalHarness(backend);
    const grant = await granted();
    const carol = await h.kernel.revokeGrant(grant.id, h.person('carol'));
    expect(carol).toMatchObject({ ok: false, message: expect.stringMatching(/Only an admin/) });
    const alice = await h.kernel.revokeGrant(grant.id, h.person('alice'));
    expect(alice.ok).toBe(false);
    const dave = await h.kernel.revokeGrant(grant.id, h.person('dave'));
    expect(dave).toMatchObject({ ok: true, message: `Ended Bob's grant ${grant.id}.` });
    expect(await h.kernel.listGrants()).toEqual([]);
    const { run, newCards } = await restart();
    expect(run.status).toBe('waiting_for_approval');
    expect(newCards).toHaveLength(1);
    const revoked = (await h.audit().list()).filter((entry) => entry.kind === 'grant_revoked');
    expect(revoked).toMatchObject([{ actor: { key: 'local:dave' }, tool: 'restart_service' }]);
    expect((await h.kernel.revokeGrant(grant.id, h.person('dave'))).ok).toBe(false);
  });

  it('refuses a duration outside permissions.grant_durations, naming the allowed ones', async () => {
    h = await createApprovalHarness(backend);
    const { run, newCards } = await restart();
    const click = await h.kernel.decideApproval(
      newCards[0]!.approvalId,
      h.person('bob'),
      'approve',
      undefined,
      {
        grantForMs: 2 * HOUR,
      },
    );
    expect(click.settled).toBe(false);
    expect(click.message).toBe(
      'A grant may last 15m, 1h, 4h (permissions.grant_durations), not 2h; nothing was approved.',
    );
    expect((await h.kernel.get(run.id)).status).toBe('waiting_for_approval');
    expect(await h.kernel.listGrants()).toEqual([]);
  });

  it('refuses a grant for a tool with grants: false, and for a two-person tool by default', async () => {
    const probe = new ToolProbe();
    h = await createApprovalHarness(
      backend,
      {},
      {
        tools: [
          slowTool(probe, 'drop_cache', { grants: false }),
          slowTool(probe, 'drop_all', { approvals: 2 }),
        ],
      },
    );
    for (const [tool, why] of [
      ['drop_cache', 'its settings say grants: false'],
      ['drop_all', 'it needs two approvers, so each call is approved on its own'],
    ] as const) {
      h.fake.reply(toolCalls([{ name: tool, arguments: { cache: 'dns' } }]));
      const run = await runTask(h.kernel, {
        text: tool,
        principal: h.person('alice'),
        conversation: inChannel(),
      });
      expect(run.status).toBe('waiting_for_approval');
      const approvalId = h.chat.ofKind('approval').at(-1)!.approvalId;
      const click = await h.kernel.decideApproval(approvalId, h.person('bob'), 'approve', undefined, {
        grantForMs: HOUR,
      });
      expect(click.settled).toBe(false);
      expect(click.message).toBe(`${tool} cannot be approved for a while: ${why}. Nothing was approved.`);
    }
    expect(await h.kernel.listGrants()).toEqual([]);
  });

  it('takes grants unless a tool says grants: false or needs two approvers without saying grants: true', () => {
    expect(takesGrants({})).toBe(true);
    expect(takesGrants({ grants: false })).toBe(false);
    expect(takesGrants({ approvals: 2 })).toBe(false);
    expect(takesGrants({ approvals: 2, grants: true })).toBe(true);
    const bad = { grants: 'yes' } as unknown as { grants: boolean };
    expect(() => slowTool(new ToolProbe(), 'drop_some', bad)).toThrow(/grants must be true or false/);
  });
});
