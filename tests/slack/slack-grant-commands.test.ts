// /ops grants and /ops revoke through the real Bolt app: a grant made with an approval is listed privately, a
// non-approver cannot end it, an approver (through a user group) can, and the next matching call waits again.
import { afterEach, describe, expect, it } from 'vitest';
import { AuditLog } from '../../agent/policy/audit-log.js';
import { withResolvedRoles } from '../../agent/policy/resolve-roles.js';
import { text, toolCalls } from '../fakes/openai-server.js';
import { SlackHarness, type SlackMode, USERS } from './slack-harness.js';

const HOUR = 60 * 60_000;

describe.each<SlackMode>(['http', 'socket'])('Slack /ops grants and /ops revoke over %s', (mode) => {
  let h: SlackHarness;
  afterEach(async () => h?.close());

  /** Alice mentions the bot for an api restart; returns the thread and the approval cards in it. */
  async function aliceRestarts() {
    h.openai.reply(toolCalls([{ name: 'restart_service', arguments: { service: 'api' } }]));
    const mention = await h.mention(USERS.alice, 'restart the api');
    await h.settled();
    return h.withButton(mention.ts, 'Approve');
  }

  /** What the last command answered, only to the person who typed it. */
  async function command(user: string, body: string): Promise<string> {
    const before = h.api.responses.length;
    await h.command(user, body);
    await h.settled();
    const replies = h.api.responses.slice(before);
    expect(replies.map((reply) => reply.body.response_type)).toEqual(['ephemeral']);
    return String(replies[0]!.body.text);
  }

  it('lists a grant, refuses a revoke by a non-approver, and ends it for an approver', async () => {
    h = await SlackHarness.start({ mode });
    expect(await aliceRestarts()).toHaveLength(1);
    const [waitingId] = await h.kernel.runs.activeRunIds();
    const waiting = await h.kernel.get(waitingId!);
    if (waiting.status !== 'waiting_for_approval') throw new Error(`the run is ${waiting.status}`);
    // Chat cards have no grant button yet: Dave (an admin by id) approves for an hour, as the CLI does.
    const dave = withResolvedRoles(h.settings.permissions, {
      platform: 'slack',
      userId: USERS.dave,
      displayName: 'Dave',
      roles: [],
      groups: [],
    });
    h.openai.reply(text('Restarted the api.'));
    const click = await h.kernel.decideApproval(waiting.approval.approvalId, dave, 'approve', undefined, {
      grantForMs: HOUR,
    });
    await h.settled();
    const grantId = click.grant!.id;

    expect(await command(USERS.carol, 'grants')).toContain(
      `• \`${grantId}\` restart_service \`{"service":"api"}\` for Alice in #ops, granted by Dave, ` +
        'until 13:00 UTC (in 1 h)',
    );
    expect(await command(USERS.alice, `revoke ${grantId}`)).toBe(
      'Only an admin or someone who may approve restart_service may end this grant.',
    );
    // Bob is an admin through the SADMINS user group.
    expect(await command(USERS.bob, `revoke ${grantId}`)).toBe(
      `Ended Dave's grant ${grantId}. It covered restart_service \`{"service":"api"}\` for Alice in #ops, ` +
        'until 13:00 UTC; those calls wait for an approver again.',
    );
    expect(await command(USERS.carol, 'grants')).toBe('No approval grants in force.');

    expect(await aliceRestarts()).toHaveLength(1);
    const audit = await new AuditLog(h.kernel.store, { clock: h.clock }).list();
    expect(audit.filter((entry) => entry.kind === 'grant_revoked')).toMatchObject([
      {
        actor: { key: `slack:${USERS.bob}` },
        tool: 'restart_service',
        reason: expect.stringContaining(grantId),
      },
    ]);
    expect(
      h.api.callsTo('chat.postMessage').some((call) => JSON.stringify(call.args).includes(grantId)),
    ).toBe(false);
  });
});
