// `grants` and `revoke <grant>` through the router: who sees which grants, who may end one, and what the next
// matching call does after it ends.
import { afterEach, describe, expect, it } from 'vitest';
import type { Conversation } from '../../agent/conversation.js';
import { ApprovalGrants, type Grant } from '../../agent/policy/approval-grants.js';
import type { Principal } from '../../agent/principal.js';
import type { ChatEvent } from '../../bot/chat/chat-event.js';
import { SettingsSchema } from '../../bot/config/settings-schema.js';
import { GRANT_LIST_LIMIT } from '../../bot/router/grant-replies.js';
import { Router } from '../../bot/router/router.js';
import { parseRouterCommand } from '../../bot/router/router-commands.js';
import { type ApprovalHarness, createApprovalHarness, permissions } from '../approvals/approval-harness.js';
import { text, toolCalls } from '../fakes/openai-server.js';

const HOUR = 60 * 60_000;
let harness: ApprovalHarness;
let router: Router;
let nextEvent = 0;
afterEach(async () => harness?.close());

const ops: Conversation = { platform: 'playground', channelId: 'ops', channelName: 'ops' };
const dev: Conversation = { platform: 'playground', channelId: 'dev', channelName: 'dev' };

async function setup() {
  harness = await createApprovalHarness('memory');
  const settings = SettingsSchema.parse({ permissions });
  const silent = { debug() {}, info() {}, warn() {}, error() {}, child: () => silent };
  router = new Router({ kernel: harness.kernel, settings, logger: silent, clock: harness.clock });
}

/** `/ops <body>` from `who` in `where`; the reply, once any run it started has settled. */
async function slash(who: string, body: string, where: Conversation = ops): Promise<string | undefined> {
  const event: ChatEvent = {
    kind: 'command',
    eventId: `c${++nextEvent}`,
    principal: harness.person(who),
    conversation: where,
    text: body,
  };
  const reply = await router.handle(event);
  await harness.kernel.idle();
  return reply.ephemeral;
}

function mention(principal: Principal, conversation: Conversation, body: string): ChatEvent {
  return {
    kind: 'message',
    eventId: `m${++nextEvent}`,
    principal,
    conversation,
    text: body,
    mentioned: true,
    direct: false,
  };
}

/** Alice asks for an api restart in a new thread of `where`; returns how many approval cards it posted. */
async function aliceRestarts(where: Conversation = ops, covered = false): Promise<number> {
  const before = harness.chat.ofKind('approval').length;
  harness.fake.reply(toolCalls([{ name: 'restart_service', arguments: { service: 'api' } }]));
  if (covered) harness.fake.reply(text('restarted under the grant'));
  await router.handle(
    mention(harness.person('alice'), { ...where, threadId: `t${++nextEvent}` }, 'restart api'),
  );
  await harness.kernel.idle();
  return harness.chat.ofKind('approval').length - before;
}

/** Alice's api restart in `where`, approved by Bob for an hour. */
async function grantedRestart(where: Conversation = ops): Promise<Grant> {
  expect(await aliceRestarts(where)).toBe(1);
  const card = harness.chat.ofKind('approval').at(-1)!;
  harness.fake.reply(text('restarted'));
  const click = await harness.kernel.decideApproval(
    card.approvalId,
    harness.person('bob'),
    'approve',
    undefined,
    {
      grantForMs: HOUR,
    },
  );
  await harness.kernel.idle();
  return click.grant!;
}

describe('parsing grants and revoke', () => {
  it('takes exact shapes, answers a lone or malformed revoke with a hint, and leaves sentences to the model', () => {
    expect(parseRouterCommand('grants')).toEqual({ name: 'grants' });
    expect(parseRouterCommand(' Grants ')).toEqual({ name: 'grants' });
    expect(parseRouterCommand('revoke grt_0123456789ABCDEF')).toEqual({
      name: 'revoke',
      grantId: 'grt_0123456789abcdef',
    });
    expect(parseRouterCommand('revoke')).toEqual({ name: 'revoke-usage' });
    expect(parseRouterCommand('revoke grt_123')).toEqual({ name: 'revoke-usage', given: 'grt_123' });
    expect(parseRouterCommand('revoke xyz')).toEqual({ name: 'revoke-usage', given: 'xyz' });
    expect(parseRouterCommand('revoke the api access')).toBeUndefined();
    expect(parseRouterCommand('grants for the api')).toBeUndefined();
  });
});

describe('/ops grants and /ops revoke', () => {
  it('lists a grant made with an approval, to anyone in its channel, with its scope, granter and end', async () => {
    await setup();
    expect(await slash('carol', 'grants')).toBe('No approval grants in force.');
    const grant = await grantedRestart();
    harness.clock.advance(18 * 60_000);
    const line =
      `• \`${grant.id}\` restart_service \`{"service":"api"}\` for Alice in #ops, granted by Bob, ` +
      'until 01:00 UTC (in 42 min)';
    expect(await slash('carol', 'grants')).toBe(
      [
        'Grants in force here, the soonest to end first:',
        line,
        "`/ops revoke <grant>` ends one; admins and the tool's approvers may.",
      ].join('\n'),
    );
    // Typed as a mention, the same list, to the asker only, and no task for the model.
    const asked = harness.fake.requests.length;
    const posted = harness.chat.posts.length;
    const reply = await router.handle(mention(harness.person('carol'), { ...ops, threadId: 'x' }, 'grants'));
    expect(reply.ephemeral).toContain(line);
    expect([harness.fake.requests.length, harness.chat.posts.length]).toEqual([asked, posted]);
  });

  it("lists other channels' grants to those who could end them, and only their number to others", async () => {
    await setup();
    const grant = await grantedRestart(dev);
    expect(await slash('carol', 'grants')).toBe(
      'No grants in force here.\nNot listed: 1 grant in other channels, which only admins and those who may approve their tools there see.',
    );
    const forDave = await slash('dave', 'grants');
    expect(forDave).toContain(
      `No grants in force here.\nIn other channels:\n• \`${grant.id}\` restart_service`,
    );
    expect(forDave).toContain('for Alice in #dev, granted by Bob');
    // In #dev it is "here" for everyone.
    expect(await slash('carol', 'grants', dev)).toContain(
      `Grants in force here, the soonest to end first:\n• \`${grant.id}\``,
    );
  });

  it(`shows at most ${GRANT_LIST_LIMIT}, this channel's first, soonest to end first, and says how many more`, async () => {
    await setup();
    const grants = new ApprovalGrants(harness.kernel.store, harness.clock);
    const made: Grant[] = [];
    for (let index = 0; index < 30; index++) {
      const where = index % 5 === 0 ? dev : ops;
      const grant: Grant = {
        id: `grt_${index.toString(16).padStart(16, '0')}`,
        tool: 'restart_service',
        requester: { key: 'local:alice', displayName: 'Alice' },
        channel: { platform: where.platform, channelId: where.channelId, channelName: where.channelName! },
        args: JSON.stringify({ service: `s${index}` }),
        grantedBy: { key: 'local:bob', displayName: 'Bob' },
        grantedAt: harness.clock.now(),
        // The later made, the sooner it ends: the list is by end, not by making.
        until: harness.clock.now() + HOUR - index * 60_000,
        approvalId: `apv_${index}`,
      };
      await grants.create(grant);
      made.push(grant);
    }
    const lines = (await slash('bob', 'grants'))!.split('\n');
    const listed = lines.filter((line) => line.startsWith('• ')).map((line) => /grt_\w+/.exec(line)![0]);
    const byEnd = (list: Grant[]) => list.sort((a, b) => a.until - b.until).map((grant) => grant.id);
    const here = byEnd(made.filter((grant) => grant.channel.channelId === 'ops'));
    const elsewhere = byEnd(made.filter((grant) => grant.channel.channelId === 'dev'));
    expect(listed).toEqual(here.slice(0, GRANT_LIST_LIMIT));
    expect(here).toHaveLength(24);
    expect(elsewhere).toHaveLength(6);
    expect(lines).toContain(
      '…and 10 more, ending later: 4 here, 6 in other channels. `opsbot grants` lists every grant.',
    );
  });

  it('ends a grant for an approver of its tool only; the next matching call gets a card, and the audit log says so', async () => {
    await setup();
    const grant = await grantedRestart();
    // Covered while the grant lasts: no card.
    expect(await aliceRestarts(ops, true)).toBe(0);
    const refusal = 'Only an admin or someone who may approve restart_service may end this grant.';
    expect(await slash('carol', `revoke ${grant.id}`)).toBe(refusal);
    // Alice may approve write_* tools, not restart_service (danger): her own grant is not hers to end.
    expect(await slash('alice', `revoke ${grant.id}`)).toBe(refusal);
    expect(await harness.kernel.listGrants()).toHaveLength(1);

    expect(await slash('dave', `revoke ${grant.id}`)).toBe(
      `Ended Bob's grant ${grant.id}. It covered restart_service \`{"service":"api"}\` for Alice in #ops, ` +
        'until 01:00 UTC; those calls wait for an approver again.',
    );
    expect(await slash('dave', `revoke ${grant.id}`)).toBe(
      `There is no live grant ${grant.id}: it ended, or the id is wrong.`,
    );
    expect(await aliceRestarts()).toBe(1);
    const revoked = (await harness.audit().list()).filter((entry) => entry.kind === 'grant_revoked');
    expect(revoked).toMatchObject([
      { actor: { key: 'local:dave' }, tool: 'restart_service', outcome: 'revoked' },
    ]);
  });

  it('answers a lone or malformed revoke with how to use it, without starting a task', async () => {
    await setup();
    expect(await slash('bob', 'revoke')).toBe(
      '`/ops revoke` needs a grant id. `/ops revoke grt_…` ends that grant, and `/ops grants` lists them. ' +
        'To ask me for something else, say it in more words.',
    );
    expect(await slash('bob', 'revoke grt_12')).toMatch(
      /^`grt_12` is not a grant id: ids are `grt_` and 16 hex digits\./,
    );
    expect(harness.chat.posts).toEqual([]);
    expect(harness.fake.requests).toEqual([]);
    harness.fake.reply(text('I cannot revoke api access.'));
    await slash('bob', 'revoke the api access');
    expect(harness.fake.requests).toHaveLength(1);
  });

  it('lists both commands in the help', async () => {
    await setup();
    const help = await slash('carol', 'help');
    expect(help).toContain('`/ops grants`');
    expect(help).toContain('`/ops revoke <grant>`');
  });
});
