// /ops grants and /ops revoke through the real discord.js Client and the fake Discord: private answers, and only
// an approver of the tool ends a grant.
import { afterEach, describe, expect, it } from 'vitest';
import { withResolvedRoles } from '../../agent/policy/resolve-roles.js';
import { text, toolCalls } from '../fakes/openai-server.js';
import {
  ALICE,
  BOB,
  CAROL,
  CHANNEL,
  permissions,
  type Rig,
  startRig,
  stopRigs,
} from './discord-adapter-rig.js';
import { renderDiscordMessage } from './render-discord-message.js';

afterEach(stopRigs);
const HOUR = 60 * 60_000;

/** Alice mentions the bot for an api restart; returns the approval cards in its thread. */
async function aliceRestarts(rig: Rig) {
  rig.model.reply(toolCalls([{ name: 'restart_service', arguments: { service: 'api' } }]));
  const asked = rig.fake.sendMessage({
    channelId: CHANNEL,
    author: ALICE,
    content: 'restart the api',
    mentionBot: true,
  });
  await rig.settled();
  return rig.fake
    .messages(asked.id)
    .filter((message) => renderDiscordMessage(message).buttons.includes('Approve'));
}

/** `/ops <task>` from `user`: the private answer, as the deferred reply's edit. */
async function slash(rig: Rig, user: typeof ALICE, task: string): Promise<string> {
  const { token } = rig.fake.slashCommand({ channelId: CHANNEL, user, options: { task } });
  const edits = () => rig.fake.api.callsTo('PATCH', new RegExp(`/${token}/messages/@original$`));
  await rig.until(`the answer to ${task}`, () => edits().length > 0);
  await rig.settled();
  const ack = rig.fake.api.callsTo('POST', new RegExp(`/${token}/callback$`));
  expect(ack.map((call) => call.body)).toEqual([{ type: 5, data: { flags: 64 } }]);
  return String((edits().at(-1)!.body as { content?: string }).content);
}

describe('/ops grants and /ops revoke on Discord', () => {
  it('lists a grant privately, refuses a revoke by a non-approver, and ends it for an admin', async () => {
    const rig = await startRig();
    expect(await aliceRestarts(rig)).toHaveLength(1);
    const [runId] = await rig.kernel.runs.activeRunIds();
    const waiting = await rig.kernel.get(runId!);
    if (waiting.status !== 'waiting_for_approval') throw new Error(`the run is ${waiting.status}`);
    const bob = withResolvedRoles(permissions, {
      platform: 'discord',
      userId: BOB.id,
      displayName: 'bob',
      roles: [],
      groups: [],
    });
    rig.model.reply(text('Restarted the api.'));
    const click = await rig.kernel.decideApproval(waiting.approval.approvalId, bob, 'approve', undefined, {
      grantForMs: HOUR,
    });
    await rig.settled();
    const grantId = click.grant!.id;

    const listed = await slash(rig, CAROL, 'grants');
    expect(listed).toContain(
      `• \`${grantId}\` restart_service \`{"service":"api"}\` for alice in #ops, granted by bob`,
    );
    expect(await slash(rig, ALICE, `revoke ${grantId}`)).toBe(
      'Only an admin or someone who may approve restart_service may end this grant.',
    );
    expect(await slash(rig, BOB, `revoke ${grantId}`)).toMatch(
      new RegExp(`^Ended bob's grant ${grantId}\\. It covered`),
    );
    expect(await rig.kernel.listGrants()).toEqual([]);
    expect(await aliceRestarts(rig)).toHaveLength(1);
  });
});
