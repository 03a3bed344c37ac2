// Alertmanager to Discord, end to end: the real Alertmanager, the bot as `npm start` runs it, the real discord.js
// client against the fake Discord. One root embed with Ack, an edit and a thread reply on a change, nothing on a
// resend; Silence clicked through the gateway: a viewer refused privately, an operator's silence approved in the
// thread and made in Alertmanager.
import { afterEach, describe, expect, it } from 'vitest';
import type { Serving } from '../../bot/serve.js';
import { renderDiscordMessage } from '../discord/render-discord-message.js';
import { type FakeDiscord, startFakeDiscord } from '../fakes/discord/fake-discord.js';
import { ALERTS_TOKEN, AlertsBotDirectory, receiverUrl, waitFor } from './alerts-serve-rig.js';
import { alertmanagerInstalled, RealAlertmanager } from './real-alertmanager.js';

const GUILD = '800000000000000001';
const CHANNEL = '800000000000000002';
const OLIVE = { id: '700000000000000001', username: 'olive' };
const ADA = { id: '700000000000000002', username: 'ada' };
const VIC = { id: '700000000000000003', username: 'vic' };

interface Button {
  label: string;
  custom_id: string;
}

function buttonsOf(message: { components: unknown[] }): Button[] {
  return (message.components as { components: Button[] }[]).flatMap((row) => row.components);
}

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

  it('silences through the approval gate from a Silence click, and refuses a viewer privately', async () => {
    discord = await startFakeDiscord();
    discord.api.addGuild({ id: GUILD, name: 'ops team', channels: [{ id: CHANNEL, name: 'alerts' }] });
    manager = await RealAlertmanager.start({
      url: 'http://127.0.0.1:9/alerts/alertmanager',
      token: ALERTS_TOKEN,
    });
    directory = new AlertsBotDirectory(
      [
        'permissions:',
        '  roles:',
        '    operator: { tools: ["*"], risks: [read, write] }',
        '    boss: { tools: ["*"], admin: true, approve: ["*"] }',
        '  identities:',
        `    'discord:${OLIVE.id}': { roles: [operator] }`,
        `    'discord:${ADA.id}': { roles: [boss] }`,
        'tools:',
        `  alertmanager: { url: '${manager.url}' }`,
        'alerts:',
        `  channel: 'discord:${CHANNEL}'`,
        '',
      ].join('\n'),
    );
    bot = await directory.serve({
      DISCORD_TOKEN: 'MTAw.fake.token',
      DISCORD_APPLICATION_ID: '910000000000000001',
      DISCORD_API_URL: discord.api.apiUrl,
    });
    await manager.retarget({ url: receiverUrl(bot), token: ALERTS_TOKEN });
    const fake = discord;
    await manager.post([alert('db1')]);
    const root = await waitFor('the root', () =>
      fake.messages(CHANNEL).find((message) => message.embeds.length > 0),
    );
    const buttons = buttonsOf(root);
    expect(buttons.map((button) => button.label)).toEqual(['Ack', 'Silence 1h', 'Silence 4h']);
    const silence1h = buttons.find((button) => button.label === 'Silence 1h')!.custom_id;
    expect(silence1h).toMatch(/^asil:[A-Za-z0-9_-]+:1h$/);
    const privateAnswers = () => fake.api.callsTo('POST', /\/webhooks\/\d+\/[^/]+$/);

    fake.clickButton({ channelId: CHANNEL, user: VIC, messageId: root.id, customId: silence1h });
    const refused = await waitFor('the refusal', () => privateAnswers().at(-1));
    expect(JSON.stringify(refused.body)).toContain('Not silenced: Your role (viewer)');
    expect((refused.body as { flags?: number }).flags).toBe(64);

    fake.clickButton({ channelId: CHANNEL, user: OLIVE, messageId: root.id, customId: silence1h });
    await waitFor('the answer to Olive', () =>
      privateAnswers().some((call) => JSON.stringify(call.body).includes('Silencing for 1h'))
        ? true
        : undefined,
    );
    const card = await waitFor('the approval card in the thread', () =>
      fake
        .messages(root.id)
        .find((message) => buttonsOf(message).some((button) => button.label === 'Approve')),
    );
    expect(renderDiscordMessage(card).text).toContain('alertname="DiskFull"');
    fake.clickButton({
      channelId: root.id,
      user: ADA,
      messageId: card.id,
      customId: buttonsOf(card).find((button) => button.label === 'Approve')!.custom_id,
    });
    const made = await waitFor('the silence in Alertmanager', async () => {
      const silences = (await (await fetch(`${manager!.url}/api/v2/silences`)).json()) as {
        createdBy: string;
        status: { state: string };
      }[];
      return silences.find((silence) => silence.status.state === 'active');
    });
    expect(made.createdBy).toBe('opsbot for olive');
  }, 60_000);
});
