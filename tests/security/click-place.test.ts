// attack: clicks were not tied to the card's place. A Slack click naming another channel and team approved the
// card, and so did a Discord click from a guild the bot is not in. A decision must come from the conversation the
// card was posted in. Real Bolt and real discord.js, against the fakes.
import { afterEach, describe, expect, it } from 'vitest';
import { runIdOfApproval } from '../../agent/policy/approval-record.js';
import { clickPlaceRefusal } from '../../agent/policy/click-place.js';
import { loadRunRecord } from '../../agent/run-migrations.js';
import { NOT_IN_GUILD } from '../../bot/discord/discord-interactions.js';
import {
  ALICE,
  BOB,
  CHANNEL as DISCORD_CHANNEL,
  GUILD,
  type Rig,
  startRig,
  stopRigs,
} from '../discord/discord-adapter-rig.js';
import { renderDiscordMessage } from '../discord/render-discord-message.js';
import { text, toolCalls } from '../fakes/openai-server.js';
import { renderSlackMessage } from '../fakes/slack/render-slack-message.js';
import { CHANNEL, type ForgeableClick, SlackHarness, type SlackMode, USERS } from '../slack/slack-harness.js';

const NOT_COUNTED = /Your click was not counted: this card was posted in/;

describe.each<SlackMode>(['http', 'socket'])('attack: a Slack click from another place, over %s', (mode) => {
  let h: SlackHarness;
  afterEach(async () => h?.close());

  async function waitingCard() {
    h = await SlackHarness.start({ mode });
    h.openai.reply(
      toolCalls([{ name: 'restart_service', arguments: { service: 'api' } }]),
      text('Restarted the api.'),
    );
    const mention = await h.mention(USERS.alice, 'restart the api');
    await h.settled();
    const [card] = h.withButton(mention.ts, 'Approve');
    if (!card) throw new Error(`no approval card:\n${h.threadText(mention.ts)}`);
    return card;
  }

  it('attack: a click naming another channel and team, or either alone, decides nothing', async () => {
    const card = await waitingCard();
    const forgeries: [string, (payload: ForgeableClick) => void][] = [
      [
        'another channel and team',
        (payload) => {
          payload.channel = { id: 'C0ELSEWHERE', name: 'random' };
          payload.container.channel_id = 'C0ELSEWHERE';
          payload.team = { id: 'T0EVIL', domain: 'evil' };
          payload.user.team_id = 'T0EVIL';
        },
      ],
      [
        'another team',
        (payload) => {
          payload.team = { id: 'T0EVIL', domain: 'evil' };
          payload.user.team_id = 'T0EVIL';
        },
      ],
      [
        'another channel',
        (payload) => {
          payload.channel = { id: 'C0ELSEWHERE', name: 'random' };
          payload.container.channel_id = 'C0ELSEWHERE';
        },
      ],
    ];
    for (const [what, forge] of forgeries) {
      const before = h.responsesText().length;
      await h.click(USERS.dave, card, 'Approve', forge);
      await h.settled();
      expect(h.probe.count('restart_service'), what).toBe(0);
      expect(h.responsesText().slice(before).join('\n'), what).toMatch(NOT_COUNTED);
      expect(renderSlackMessage(h.api.message(CHANNEL, card.ts)!).buttons, what).toContain('Approve');
    }
    // The same approver, clicking on the card where it is, approves it.
    await h.click(USERS.dave, card, 'Approve');
    await h.settled();
    expect(h.probe.count('restart_service')).toBe(1);
  });
});

describe('a card of a run stored before workspaces were recorded', () => {
  let h: SlackHarness;
  afterEach(async () => h?.close());

  it('is still decided by a click in its channel, and still refused from another channel', async () => {
    h = await SlackHarness.start({ mode: 'http' });
    h.openai.reply(
      toolCalls([{ name: 'restart_service', arguments: { service: 'api' } }]),
      text('Restarted the api.'),
    );
    const mention = await h.mention(USERS.alice, 'restart the api');
    await h.settled();
    const [card] = h.withButton(mention.ts, 'Approve');
    const approvalId = JSON.stringify(card!.blocks).match(/"value":"approve:(apv_[\w-]+)"/)![1]!;
    const run = (await h.kernel.runs.find(runIdOfApproval(approvalId)!))!;
    expect(run.conversation.workspaceId).toBe('T0001');
    // As an older opsbot stored it: the same run without the workspace.
    const { workspaceId: _recorded, ...conversation } = run.conversation;
    await h.kernel.runs.save(loadRunRecord(JSON.parse(JSON.stringify({ ...run, conversation })), 'older'));

    await h.click(USERS.dave, card!, 'Approve', (payload) => {
      payload.channel = { id: 'C0ELSEWHERE', name: 'random' };
      payload.container.channel_id = 'C0ELSEWHERE';
    });
    await h.settled();
    expect(h.probe.count('restart_service')).toBe(0);
    expect(h.responsesText().join('\n')).toMatch(NOT_COUNTED);
    await h.click(USERS.dave, card!, 'Approve');
    await h.settled();
    expect(h.probe.count('restart_service')).toBe(1);
  });
});

describe('attack: a Discord click from another place', () => {
  afterEach(stopRigs);

  async function waitingCard(rig: Rig) {
    rig.model.reply(
      toolCalls([{ name: 'restart_service', arguments: { service: 'api' } }]),
      text('Restarted the api.'),
    );
    const asked = rig.fake.sendMessage({
      channelId: DISCORD_CHANNEL,
      author: ALICE,
      content: 'restart the api',
      mentionBot: true,
    });
    await rig.settled();
    const card = rig.fake
      .messages(asked.id)
      .find((message) => renderDiscordMessage(message).buttons.includes('Approve'))!;
    const approveId = (card.components as { components: { label: string; custom_id: string }[] }[])
      .flatMap((row) => row.components)
      .find((button) => button.label === 'Approve')!.custom_id;
    return { thread: asked.id, card, approveId };
  }

  const privateReplies = (rig: Rig) =>
    JSON.stringify([
      ...rig.fake.api.callsTo('POST', /\/interactions\/\d+\/[^/]+\/callback$/).map((call) => call.body),
      ...rig.fake.api.callsTo('POST', /\/webhooks\/\d+\/[^/]+$/).map((call) => call.body),
    ]);

  it('attack: a click from a guild the bot is not in is refused, and says why', async () => {
    const rig = await startRig();
    const { thread, card, approveId } = await waitingCard(rig);
    rig.fake.clickButton({
      channelId: thread,
      guildId: '800000000000000099',
      user: BOB,
      messageId: card.id,
      customId: approveId,
    });
    await rig.until('the refusal', () => privateReplies(rig).includes(NOT_IN_GUILD));
    await rig.settled();
    expect(rig.probe.count('restart_service')).toBe(0);

    rig.fake.clickButton({ channelId: thread, user: BOB, messageId: card.id, customId: approveId });
    await rig.until('the run', () => rig.probe.count('restart_service') === 1);
  });

  it('attack: a click from another channel of the same guild decides nothing', async () => {
    const rig = await startRig();
    const { thread, card, approveId } = await waitingCard(rig);
    const elsewhere = '800000000000000077';
    rig.fake.api.channels.set(elsewhere, { id: elsewhere, type: 0, name: 'random', guildId: GUILD });
    rig.fake.clickButton({ channelId: elsewhere, user: BOB, messageId: card.id, customId: approveId });
    await rig.until('the refusal', () => NOT_COUNTED.test(privateReplies(rig)));
    await rig.settled();
    expect(rig.probe.count('restart_service')).toBe(0);

    rig.fake.clickButton({ channelId: thread, user: BOB, messageId: card.id, customId: approveId });
    await rig.until('the run', () => rig.probe.count('restart_service') === 1);
  });
});

describe('clickPlaceRefusal', () => {
  const card = {
    platform: 'slack' as const,
    channelId: 'C0OPS',
    threadId: '1700000000.000100',
    channelName: 'ops',
    workspaceId: 'T0001',
  };

  it("accepts a click in the card's channel or thread, and in a card stored before workspaces were recorded", () => {
    expect(clickPlaceRefusal(card, { ...card, threadId: undefined })).toBeUndefined();
    const discordCard = { platform: 'discord' as const, channelId: '1', threadId: '2', workspaceId: '9' };
    expect(
      clickPlaceRefusal(discordCard, { platform: 'discord', channelId: '2', workspaceId: '9' }),
    ).toBeUndefined();
    const { workspaceId: _none, ...stored } = card;
    expect(clickPlaceRefusal(stored, { ...card, workspaceId: 'T0002' })).toBeUndefined();
  });

  it('refuses another platform, workspace or channel, and a click that names no workspace', () => {
    expect(clickPlaceRefusal(card, { ...card, platform: 'discord' })).toMatch(NOT_COUNTED);
    expect(clickPlaceRefusal(card, { ...card, workspaceId: 'T0EVIL' })).toMatch(/another workspace/);
    const { workspaceId: _none, ...unnamed } = card;
    expect(clickPlaceRefusal(card, unnamed)).toMatch(/another workspace/);
    expect(clickPlaceRefusal(card, { ...card, channelId: 'C0ELSE' })).toMatch(/posted in #ops/);
  });
});
