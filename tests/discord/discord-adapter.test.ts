// The Discord adapter end to end: the real discord.js Client against the fake Discord, the real router and kernel,
// a scripted model: a mention answered in a new thread, /ops acknowledged at once, and an approval by button.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ManualClock } from '../../agent/clock.js';
import { Kernel } from '../../agent/kernel.js';
import { silentLogger } from '../../agent/logger.js';
import { createOpenAIModelClient } from '../../agent/model/model-client.js';
import { ApprovalBook } from '../../agent/policy/approvals.js';
import { AuditLog } from '../../agent/policy/audit-log.js';
import { PermissionSettingsSchema } from '../../agent/policy/permission-settings.js';
import { settingsToolPolicy } from '../../agent/policy/settings-tool-policy.js';
import { MemoryStore } from '../../agent/store/memory-store.js';
import { ChatPortByPlatform } from '../../bot/chat-port-by-platform.js';
import { SettingsSchema } from '../../bot/config/settings-schema.js';
import { type DiscordAdapter, startDiscord } from '../../bot/discord/discord-adapter.js';
import { Router } from '../../bot/router/router.js';
import { type FakeDiscord, startFakeDiscord } from '../fakes/discord/fake-discord.js';
import { type FakeOpenAIServer, startFakeOpenAIServer, text, toolCalls } from '../fakes/openai-server.js';
import { ToolProbe, testTools } from '../kernel/harness.js';
import { renderDiscordMessage } from './render-discord-message.js';

const GUILD = '800000000000000001';
const CHANNEL = '800000000000000002';
const ALICE = { id: '700000000000000001', username: 'alice' };
const BOB = { id: '700000000000000002', username: 'bob' };
/** For what arrives over the gateway: polled, since a loaded machine may deliver it after settled() returns. */
const WAIT = { timeout: 10_000, interval: 25 };

const permissions = PermissionSettingsSchema.parse({
  roles: {
    operator: { tools: ['*'], risks: ['read', 'write', 'danger'] },
    admin: { tools: ['*'], risks: ['read', 'write', 'danger'], approve: ['*'], admin: true },
  },
  identities: {
    [`discord:${ALICE.id}`]: { roles: ['operator'] },
    [`discord:${BOB.id}`]: { roles: ['admin'] },
  },
});

interface Rig {
  clock: ManualClock;
  fake: FakeDiscord;
  model: FakeOpenAIServer;
  kernel: Kernel;
  adapter: DiscordAdapter;
  probe: ToolProbe;
  /** Waits until the adapter and the kernel have nothing left to do. */
  settled(): Promise<void>;
}

let rig: Rig | undefined;
afterEach(async () => {
  if (!rig) return;
  await rig.adapter.stop();
  await rig.kernel.shutdown();
  await rig.fake.close();
  await rig.model.close();
  rig = undefined;
});

async function start(): Promise<Rig> {
  const fake = await startFakeDiscord();
  fake.api
    .addGuild({ id: GUILD, name: 'ops team', channels: [{ id: CHANNEL, name: 'ops' }] })
    .addMember(GUILD, ALICE, [])
    .addMember(GUILD, BOB, []);
  const model = await startFakeOpenAIServer();
  const clock = new ManualClock(Date.now());
  const store = new MemoryStore(clock);
  const probe = new ToolProbe();
  const chat = new ChatPortByPlatform();
  const audit = new AuditLog(store, { clock });
  const kernel = new Kernel({
    store,
    tools: testTools(probe),
    model: createOpenAIModelClient({
      baseURL: model.baseURL,
      apiKey: 'sk-test',
      model: 'fake',
      timeoutMs: 2000,
      maxRetries: 0,
    }),
    policy: (registry) => settingsToolPolicy(permissions, registry),
    approvals: { book: new ApprovalBook(store, { clock, audit }), audit, permissions },
    chat,
    clock,
    limits: { toolTimeoutMs: 1000 },
  });
  const router = new Router({
    kernel,
    settings: SettingsSchema.parse({ permissions }),
    logger: silentLogger,
    clock,
  });
  const adapter = await startDiscord({
    token: 'MTAw.fake.token',
    apiUrl: fake.api.apiUrl,
    router,
    store,
    permissions,
    messageContent: false,
    allowedBotIds: [],
    clock,
    logger: silentLogger,
  });
  chat.register('discord', adapter.port);
  const settled = async () => {
    for (let round = 0; round < 3; round++) {
      await adapter.idle();
      await kernel.idle();
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  };
  return { clock, fake, model, kernel, adapter, probe, settled };
}

describe('Discord adapter', () => {
  it('answers a mention in a new public thread named after the task, without pinging anyone', async () => {
    rig = await start();
    rig.model.reply(text('The api is up, @everyone.'));
    const asked = rig.fake.sendMessage({
      channelId: CHANNEL,
      author: ALICE,
      content: 'is the api up?',
      mentionBot: true,
    });
    await rig.settled();
    const thread = rig.fake.api.threads(CHANNEL).find((candidate) => candidate.id === asked.id);
    expect(thread?.name).toBe('is the api up?');
    const shown = rig.fake.messages(asked.id).map(renderDiscordMessage);
    expect(shown.map((message) => message.text).join('\n')).toContain('The api is up');
    expect(shown.flatMap((message) => message.pings)).toEqual([]);
    expect(
      rig.fake
        .messages(asked.id)
        .every((message) => JSON.stringify(message.allowedMentions) === '{"parse":[]}'),
    ).toBe(true);
  });

  it('acknowledges /ops help at once, privately, then answers it', async () => {
    rig = await start();
    const { token } = rig.fake.slashCommand({ channelId: CHANNEL, user: ALICE, options: { task: 'help' } });
    await rig.settled();
    const current = rig;
    // The interaction reaches the client over the gateway; under load that can take longer than settled() waits.
    await vi.waitFor(() => {
      const edits = current.fake.api.callsTo(
        'PATCH',
        new RegExp(`/webhooks/\\d+/${token}/messages/@original`),
      );
      expect(JSON.stringify(edits.at(-1)?.body)).toContain('/ops status');
    }, WAIT);
    const callback = rig.fake.api.callsTo('POST', /\/interactions\/\d+\/[^/]+\/callback/)[0];
    expect(callback?.body).toMatchObject({ type: 5, data: { flags: 64 } });
  });

  it('runs an approval by button: the requester is refused privately, an approver approves once', async () => {
    rig = await start();
    rig.model.reply(
      toolCalls([{ name: 'restart_service', arguments: { service: 'api' } }], {
        content: 'the api is stuck',
      }),
      text('Restarted the api.'),
    );
    const asked = rig.fake.sendMessage({
      channelId: CHANNEL,
      author: ALICE,
      content: 'restart the api',
      mentionBot: true,
    });
    await rig.settled();
    const card = rig.fake
      .messages(asked.id)
      .find((message) => renderDiscordMessage(message).buttons.includes('Approve'));
    expect(card).toBeDefined();
    const approveId = (card!.components as { components: { label: string; custom_id: string }[] }[])
      .flatMap((row) => row.components)
      .find((button) => button.label === 'Approve')!.custom_id;

    rig.fake.clickButton({ channelId: asked.id, user: ALICE, messageId: card!.id, customId: approveId });
    const current = rig;
    await vi.waitFor(() => {
      const refusal = current.fake.api.callsTo('POST', /\/webhooks\/\d+\/[^/]+$/).at(-1);
      expect(JSON.stringify(refusal?.body)).toContain('someone else has to approve');
    }, WAIT);
    expect(rig.probe.count('restart_service')).toBe(0);

    rig.fake.clickButton({ channelId: asked.id, user: BOB, messageId: card!.id, customId: approveId });
    await vi.waitFor(() => expect(current.probe.count('restart_service')).toBe(1), WAIT);
    await rig.settled();
    const updated = renderDiscordMessage(rig.fake.api.message(card!.id)!);
    expect(updated.buttons).toEqual([]);
    expect(updated.text).toContain('Approved');
    expect(
      rig.fake
        .messages(asked.id)
        .map((message) => renderDiscordMessage(message).text)
        .join('\n'),
    ).toContain('Restarted the api.');
  });

  it('takes a reply in the thread as the answer to the question asked there', async () => {
    rig = await start();
    rig.model.reply(
      toolCalls([
        { name: 'ask_user', arguments: { question: 'Which environment?', choices: ['staging', 'prod'] } },
      ]),
      text('prod is fine.'),
    );
    const asked = rig.fake.sendMessage({
      channelId: CHANNEL,
      author: ALICE,
      content: 'check the api',
      mentionBot: true,
    });
    await rig.settled();
    expect(
      rig.fake
        .messages(asked.id)
        .map((message) => renderDiscordMessage(message).text)
        .join('\n'),
    ).toContain('Which environment?');
    // Without MessageContent, Discord sends a thread reply's text only when it mentions the bot.
    rig.fake.sendMessage({ channelId: asked.id, author: ALICE, content: 'prod', mentionBot: true });
    await rig.settled();
    const thread = rig.fake
      .messages(asked.id)
      .map((message) => renderDiscordMessage(message).text)
      .join('\n');
    expect(thread).toContain('prod is fine.');
    expect(rig.model.requests).toHaveLength(2);
  });

  it('works in a DM like a mention, answering in the DM', async () => {
    rig = await start();
    const dm = rig.fake.api.dmChannel(ALICE);
    rig.model.reply(text('disk is fine'));
    rig.fake.sendMessage({ channelId: dm.id, author: ALICE, content: 'how is the disk?' });
    await rig.settled();
    const shown = rig.fake.messages(dm.id).map((message) => renderDiscordMessage(message).text);
    expect(shown.join('\n')).toContain('disk is fine');
  });

  /** Alice's restart waits for approval; returns the card and its Approve button's id. */
  async function waitingCard(current: Rig) {
    current.model.reply(
      toolCalls([{ name: 'restart_service', arguments: { service: 'api' } }], {
        content: 'the api is stuck',
      }),
      text('Restarted the api.'),
    );
    const asked = current.fake.sendMessage({
      channelId: CHANNEL,
      author: ALICE,
      content: 'restart the api',
      mentionBot: true,
    });
    await current.settled();
    const card = current.fake
      .messages(asked.id)
      .find((message) => renderDiscordMessage(message).buttons.includes('Approve'))!;
    const approveId = (card.components as { components: { label: string; custom_id: string }[] }[])
      .flatMap((row) => row.components)
      .find((button) => button.label === 'Approve')!.custom_id;
    return { thread: asked.id, card, approveId };
  }

  it('runs a double click once, and tells the second clicker who won', async () => {
    rig = await start();
    const { thread, card, approveId } = await waitingCard(rig);
    rig.fake.clickButton({ channelId: thread, user: BOB, messageId: card.id, customId: approveId });
    rig.fake.clickButton({ channelId: thread, user: BOB, messageId: card.id, customId: approveId });
    const current = rig;
    await vi.waitFor(() => {
      const followUps = current.fake.api
        .callsTo('POST', /\/webhooks\/\d+\/[^/]+$/)
        .map((call) => JSON.stringify(call.body));
      expect(followUps.some((body) => body.includes('Already approved by'))).toBe(true);
    }, WAIT);
    await rig.settled();
    expect(rig.probe.count('restart_service')).toBe(1);
  });

  it('refuses a click after the approval expired, runs nothing, and shows the card expired', async () => {
    rig = await start();
    const { thread, card, approveId } = await waitingCard(rig);
    rig.clock.advance(15 * 60_000 + 1_000);
    rig.fake.clickButton({ channelId: thread, user: BOB, messageId: card.id, customId: approveId });
    const current = rig;
    await vi.waitFor(
      () => expect(renderDiscordMessage(current.fake.api.message(card.id)!).text).toContain('Expired'),
      WAIT,
    );
    await rig.settled();
    expect(rig.probe.count('restart_service')).toBe(0);
    expect(renderDiscordMessage(rig.fake.api.message(card.id)!).buttons).toEqual([]);
  });
});
