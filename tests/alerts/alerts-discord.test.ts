// Alertmanager to Discord, end to end: the real Alertmanager, the bot as `npm start` runs it, the real discord.js
// client against the fake Discord. One root embed with Ack, an edit and a thread reply on a change, nothing on a
// resend.
import { afterEach, describe, expect, it } from 'vitest';
import type { Serving } from '../../bot/serve.js';
import { renderDiscordMessage } from '../discord/render-discord-message.js';
import { type FakeDiscord, startFakeDiscord } from '../fakes/discord/fake-discord.js';
import { ALERTS_TOKEN, AlertsBotDirectory, receiverUrl, waitFor } from './alerts-serve-rig.js';
import { alertmanagerInstalled, RealAlertmanager } from './real-alertmanager.js';

const GUILD = '800000000000000001';
const CHANNEL = '800000000000000002';

let discord: FakeDiscord | undefined;
let directory: AlertsBotDirectory | undefined;
let bot: Serving | undefined;
let manager: RealAlertmanager | undefined;
afterEach(async () => {
  await manager?.stop();
  await bot?.stop();
  await discord?.close();
  directory?.remove();
  bot = discord = directory = manager = undefined;
});

function alert(instance: string) {
  return {
    labels: { alertname: 'DiskFull', instance },
    annotations: { summary: `Disk on ${instance} is full @everyone` },
    startsAt: new Date(Date.now() - 60_000).toISOString(),
  };
}

describe.skipIf(!alertmanagerInstalled)('alert groups on Discord through the real Alertmanager', () => {
  it('posts one root embed, edits it and replies in its thread when an alert joins, and ignores resends', async () => {
    discord = await startFakeDiscord();
    discord.api.addGuild({ id: GUILD, name: 'ops team', channels: [{ id: CHANNEL, name: 'alerts' }] });
    directory = new AlertsBotDirectory(['alerts:', `  channel: 'discord:${CHANNEL}'`, ''].join('\n'));
    bot = await directory.serve({
      DISCORD_TOKEN: 'MTAw.fake.token',
      DISCORD_APPLICATION_ID: '910000000000000001',
      DISCORD_API_URL: discord.api.apiUrl,
    });
    manager = await RealAlertmanager.start({ url: receiverUrl(bot), token: ALERTS_TOKEN });
    const fake = discord;
    await manager.post([alert('db1')]);
    const root = await waitFor('the root', () =>
      fake.messages(CHANNEL).find((message) => message.embeds.length > 0),
    );
    const embed = root.embeds[0] as { title?: string };
    expect(embed.title).toBe('🔴 FIRING · alertname=DiskFull · 1 alert');
    expect(root.allowedMentions).toEqual({ parse: [] });
    expect(renderDiscordMessage(root).text).toContain('Disk on db1 is full');

    const sent = (await manager.notifications()).sent;
    await waitFor('two resends', async () =>
      (await manager!.notifications()).sent >= sent + 2 ? true : undefined,
    );
    expect(fake.messages(CHANNEL).filter((message) => message.embeds.length > 0)).toHaveLength(1);

    await manager.post([alert('db1'), alert('db2')]);
    const thread = await waitFor('the thread under the root', () =>
      fake.api.threads(CHANNEL).find((candidate) => candidate.id === root.id),
    );
    expect(thread.name).toBe('alert DiskFull');
    const reply = await waitFor('the reply', () => fake.messages(thread.id)[0]);
    expect(renderDiscordMessage(reply).text).toContain('instance=db2');
    await waitFor('the root to count 2', () =>
      (fake.api.message(root.id)!.embeds[0] as { title?: string }).title?.includes('2 alerts')
        ? true
        : undefined,
    );
    expect(fake.messages(CHANNEL).filter((message) => message.embeds.length > 0)).toHaveLength(1);
  }, 60_000);
});
