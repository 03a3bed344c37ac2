// A patrol end to end on Discord, as `npm start` runs it: the real discord.js Client against the fake Discord, a
// real local HTTP target that fails and recovers, runs started with `/ops`, and Ack clicked through the gateway.
import { afterEach, describe, expect, it } from 'vitest';
import { renderDiscordMessage } from '../discord/render-discord-message.js';
import { type FakeDiscord, startFakeDiscord } from '../fakes/discord/fake-discord.js';
import {
  PATROL,
  patrolSettings,
  type ScriptedTarget,
  type ServedBot,
  serveWithSettings,
  startScriptedTarget,
  waitFor,
} from './patrol-serve-rig.js';

const GUILD = '800000000000000001';
const CHANNEL = '800000000000000002';
const ALICE = { id: '700000000000000001', username: 'alice' };

let discord: FakeDiscord | undefined;
let target: ScriptedTarget | undefined;
let bot: ServedBot | undefined;
afterEach(async () => {
  await bot?.stop();
  await discord?.close();
  await target?.close();
  bot = discord = target = undefined;
});

interface Button {
  label: string;
  custom_id: string;
}

function buttonsOf(message: { components: unknown[] }): Button[] {
  return (message.components as { components: Button[] }[]).flatMap((row) => row.components);
}

/** `/ops patrol run web` until it starts (a refusal while the last run is going means: wait for it). */
async function runPatrol(fake: FakeDiscord): Promise<void> {
  await waitFor('the patrol to start', async () => {
    const { token } = fake.slashCommand({
      channelId: CHANNEL,
      user: ALICE,
      options: { task: `patrol run ${PATROL}` },
    });
    const answer = await waitFor('the answer to /ops', () => {
      const edit = fake.api.callsTo('PATCH', new RegExp(`/webhooks/\\d+/${token}/messages/@original`)).at(-1);
      return edit ? JSON.stringify(edit.body) : undefined;
    });
    if (answer.includes('Running patrol')) return true;
    if (!answer.includes('already running')) throw new Error(`patrol run refused: ${answer}`);
    return undefined;
  });
}

describe('a patrol on Discord, end to end', () => {
  it('posts the report as an embed with buttons, takes Ack through the gateway, resolves in a thread', async () => {
    target = await startScriptedTarget([503, 200]);
    discord = await startFakeDiscord();
    discord.api
      .addGuild({ id: GUILD, name: 'ops team', channels: [{ id: CHANNEL, name: 'ops' }] })
      .addMember(GUILD, ALICE, []);
    bot = await serveWithSettings(
      patrolSettings({ channel: `discord:${CHANNEL}`, url: target.url, identities: [`discord:${ALICE.id}`] }),
      {
        DISCORD_TOKEN: 'MTAw.fake.token',
        DISCORD_APPLICATION_ID: '910000000000000001',
        DISCORD_API_URL: discord.api.apiUrl,
      },
    );
    const fake = discord;

    await runPatrol(fake);
    const report = await waitFor('the report', () =>
      fake.messages(CHANNEL).find((message) => message.embeds.length > 0),
    );
    const embed = report.embeds[0] as { title?: string; color?: number; footer?: { text: string } };
    expect(embed.title).toBe(`🔴 CRITICAL · ${PATROL}`);
    expect(embed.color).toBe(0xef4444);
    expect(renderDiscordMessage(report).text).toMatch(/api.*\(http_check\) failing, critical: .*503/);
    expect(embed.footer?.text).toContain('schedule in UTC');
    expect(report.allowedMentions).toEqual({ parse: [] });
    const buttons = buttonsOf(report);
    expect(buttons.map((button) => button.label)).toEqual([
      'Ack',
      'Snooze 1h',
      'Snooze 4h',
      'Snooze 1d',
      'Run again',
    ]);
    for (const button of buttons) {
      expect(button.custom_id.length).toBeLessThanOrEqual(100);
      expect(button.custom_id).toMatch(/^(pack|prun|psnooze):rpt_[0-9a-f]+(:(1h|4h|1d))?$/);
    }

    fake.clickButton({
      channelId: CHANNEL,
      user: ALICE,
      messageId: report.id,
      customId: buttons.find((button) => button.label === 'Ack')!.custom_id,
    });
    await waitFor('the report to show the ack', () =>
      renderDiscordMessage(fake.api.message(report.id)!).text.includes('Acked by alice') ? true : undefined,
    );
    const acked = fake.api.message(report.id)!;
    expect(buttonsOf(acked).map((button) => button.label)).not.toContain('Ack');
    const followUp = await waitFor('the private answer', () =>
      fake.api.callsTo('POST', /\/webhooks\/\d+\/[^/]+$/).at(-1),
    );
    expect(JSON.stringify(followUp.body)).toContain('Acked');
    expect((followUp.body as { flags?: number }).flags).toBe(64);

    await runPatrol(fake); // 200: resolved
    const thread = await waitFor('the thread under the report', () =>
      fake.api.threads(CHANNEL).find((candidate) => candidate.id === report.id),
    );
    expect(thread.name).toBe(`patrol ${PATROL}`);
    const resolution = await waitFor('the resolution', () => fake.messages(thread.id)[0]);
    expect(renderDiscordMessage(resolution).text).toContain(`RESOLVED · ${PATROL}`);
    expect(resolution.components).toEqual([]);
    expect(resolution.allowedMentions).toEqual({ parse: [] });
    await waitFor('the report to show it resolved', () =>
      renderDiscordMessage(fake.api.message(report.id)!).text.includes('RESOLVED') ? true : undefined,
    );
    const resolved = fake.api.message(report.id)!;
    expect((resolved.embeds[0] as { color?: number }).color).toBe(0x22c55e);
    expect(resolved.components).toEqual([]);
    expect(fake.messages(CHANNEL).filter((message) => message.embeds.length > 0)).toHaveLength(1);
  });
});
