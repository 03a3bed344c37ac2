// Attack: the store emptied under the bot (FLUSHALL on Redis). Runs waiting for approval vanished silently: their
// cards said "Approval needed" for ever, and a click got "There is no approval … check the id".
import type { ChildProcess } from 'node:child_process';
import type { DatabaseSync } from 'node:sqlite';
import { createClient } from '@redis/client';
import { afterEach, describe, expect, it } from 'vitest';
import { RedisStore } from '../../agent/store/redis-store.js';
import { StoreEpoch } from '../../agent/store/store-epoch.js';
import { GONE_CARD_TEXT, LOST_STATE_TEXT } from '../../agent/store-reset-watch.js';
import type { PresentedMessage } from '../../bot/playground/playground-view.js';
import {
  ALICE as DISCORD_ALICE,
  BOB as DISCORD_BOB,
  CHANNEL as DISCORD_CHANNEL,
  startRig,
  stopRigs,
} from '../discord/discord-adapter-rig.js';
import { renderDiscordMessage } from '../discord/render-discord-message.js';
import { tearDown } from '../fakes/discord/discord-client-rig.js';
import { type FakeOpenAIServer, startFakeOpenAIServer, toolCalls } from '../fakes/openai-server.js';
import { renderSlackMessage } from '../fakes/slack/render-slack-message.js';
import { type ClockedPlayground, startClockedPlayground } from '../playground/helpers/clocked-playground.js';
import { freePort, startRedisServer, stopRedisServer } from '../redis-server.js';
import { CHANNEL, SlackHarness, USERS } from '../slack/slack-harness.js';

let model: FakeOpenAIServer | undefined;
let playground: ClockedPlayground | undefined;
let server: ChildProcess | undefined;
let slack: SlackHarness | undefined;

afterEach(async () => {
  await playground?.stop();
  await model?.close();
  if (server) await stopRedisServer(server);
  await slack?.close();
  slack = undefined;
  await stopRigs();
  await tearDown();
  playground = undefined;
  model = undefined;
  server = undefined;
});

async function thread(rootId: string): Promise<PresentedMessage[]> {
  return (await playground!.messages()).filter((message) => message.threadId === rootId);
}

/** Alice asks for a restart; the card waits for Bob. */
async function waitingCard() {
  model = await startFakeOpenAIServer();
  playground = await startClockedPlayground(model);
  model.reply(toolCalls([{ name: 'restart_service', arguments: { service: 'api' } }]));
  const posted = await playground.say('alice', '@opsbot restart the api');
  await playground.settled();
  const rootId: string = posted.body.message.id;
  const card = (await thread(rootId)).find((message) => message.content.kind === 'approval');
  if (!card?.view || card.content.kind !== 'approval') throw new Error('no approval card');
  const approve = card.view.buttons.find((button) => button.label === 'Approve')!;
  return { rootId, card, approve, runId: card.content.runId };
}

/**
 * Empties the bot's SQLite store as FLUSHALL empties Redis, but keeps the playground's own messages (which live
 * in the same store here, and in the browser on a real platform), so the old card can still be clicked.
 */
function emptyTheStore(playground: ClockedPlayground): void {
  const db = Reflect.get(playground.opsbot.store, 'db') as DatabaseSync;
  db.exec(`
    DELETE FROM keyv WHERE key NOT LIKE '%playground:%';
    DELETE FROM claims;
    DELETE FROM log_records WHERE log NOT LIKE 'playground:%';
    DELETE FROM set_members WHERE set_name NOT LIKE 'playground:%';
    DELETE FROM index_members;
  `);
}

function textOf(message: PresentedMessage | undefined): string | undefined {
  return message?.content.kind === 'text' ? message.content.text : undefined;
}

describe('a store that was reset', () => {
  it('attack: after the store is emptied, the waiting card stays "Approval needed" and nobody is told', async () => {
    const { rootId, card } = await waitingCard();
    emptyTheStore(playground!);
    expect((await playground!.storeReset.check()).reset).toBe(true);
    await playground!.settled();

    const after = await thread(rootId);
    expect(textOf(after.find((message) => message.id === card.id))).toBe(GONE_CARD_TEXT);
    expect(after.find((message) => message.id === card.id)?.view?.buttons ?? []).toEqual([]);
    expect(after.filter((message) => textOf(message) === LOST_STATE_TEXT)).toHaveLength(1);
    // Said once: the next check finds the new epoch.
    expect((await playground!.storeReset.check()).reset).toBe(false);
    await playground!.settled();
    expect((await thread(rootId)).filter((message) => textOf(message) === LOST_STATE_TEXT)).toHaveLength(1);
  });

  it('attack: a click on an approval that no longer exists is told "check the id", and its card stays open', async () => {
    const { rootId, card, approve } = await waitingCard();
    emptyTheStore(playground!);
    expect((await playground!.press('bob', card.id, approve.id)).status).toBe(202);
    await playground!.settled();
    const told = await playground!.live.next(
      (event) => event.event === 'ephemeral' && String(event.data.text).includes('gone'),
      3_000,
    );
    expect(told.data.text).toBe(GONE_CARD_TEXT);
    const after = await thread(rootId);
    expect(textOf(after.find((message) => message.id === card.id))).toBe(GONE_CARD_TEXT);
    // The click read the epoch: the reset is said in the thread too, once.
    expect(after.filter((message) => textOf(message) === LOST_STATE_TEXT)).toHaveLength(1);
  });

  it('attack: a card whose run is no longer kept (no reset) stays clickable with "check the id"', async () => {
    const { rootId, card, approve, runId } = await waitingCard();
    await playground!.opsbot.store.delete(`run:${runId}`);
    await playground!.press('bob', card.id, approve.id);
    await playground!.settled();
    const after = await thread(rootId);
    expect(textOf(after.find((message) => message.id === card.id))).toBe(GONE_CARD_TEXT);
    expect(after.filter((message) => textOf(message) === LOST_STATE_TEXT)).toHaveLength(0);
  });

  it('attack: on Slack, a click on an approval that no longer exists leaves its card waiting', async () => {
    slack = await SlackHarness.start({ mode: 'http' });
    slack.openai.reply(toolCalls([{ name: 'restart_service', arguments: { service: 'api' } }]));
    const mention = await slack.mention(USERS.alice, 'restart api');
    await slack.settled();
    const [card] = slack.withButton(mention.ts, 'Approve');
    if (!card) throw new Error('no approval card');
    for (const runId of await slack.kernel.runs.waitingRunIds())
      await slack.kernel.store.delete(`run:${runId}`);
    await slack.click(USERS.bob, card, 'Approve');
    await slack.settled();
    const closed = renderSlackMessage(slack.api.message(CHANNEL, card.ts)!);
    expect(closed.text).toContain(GONE_CARD_TEXT);
    expect(closed.buttons).toEqual([]);
  });

  it('attack: on Slack, a Deny with its reason dialog, on an approval that no longer exists, leaves its card waiting', async () => {
    slack = await SlackHarness.start({ mode: 'http' });
    slack.openai.reply(toolCalls([{ name: 'restart_service', arguments: { service: 'api' } }]));
    const mention = await slack.mention(USERS.alice, 'restart api');
    await slack.settled();
    const [card] = slack.withButton(mention.ts, 'Deny');
    if (!card) throw new Error('no approval card');
    for (const runId of await slack.kernel.runs.waitingRunIds())
      await slack.kernel.store.delete(`run:${runId}`);
    await slack.click(USERS.bob, card, 'Deny');
    await slack.settled();
    const view = slack.api.views.at(-1);
    if (!view) throw new Error('Deny opened no dialog');
    await slack.submitView(USERS.bob, view, { reason: { reason: 'not now' } });
    await slack.settled();
    const closed = renderSlackMessage(slack.api.message(CHANNEL, card.ts)!);
    expect(closed.text).toContain(GONE_CARD_TEXT);
    expect(closed.buttons).toEqual([]);
  });

  it('attack: on Discord, a click on an approval that no longer exists leaves its card waiting', async () => {
    const rig = await startRig();
    rig.model.reply(toolCalls([{ name: 'restart_service', arguments: { service: 'api' } }]));
    const asked = rig.fake.sendMessage({
      channelId: DISCORD_CHANNEL,
      author: DISCORD_ALICE,
      content: 'restart the api',
      mentionBot: true,
    });
    await rig.settled();
    const card = rig.fake
      .messages(asked.id)
      .find((message) => renderDiscordMessage(message).buttons.includes('Approve'));
    if (!card) throw new Error('no approval card');
    const approveId = (card.components as { components: { label: string; custom_id: string }[] }[])
      .flatMap((row) => row.components)
      .find((button) => button.label === 'Approve')!.custom_id;
    for (const runId of await rig.kernel.runs.waitingRunIds()) await rig.kernel.store.delete(`run:${runId}`);

    rig.fake.clickButton({ channelId: asked.id, user: DISCORD_BOB, messageId: card.id, customId: approveId });
    await rig.until('the card is closed', () =>
      renderDiscordMessage(rig.fake.api.message(card.id)!).text.includes(GONE_CARD_TEXT),
    );
    expect(renderDiscordMessage(rig.fake.api.message(card.id)!).buttons).toEqual([]);
  });

  it('attack: FLUSHALL on Redis goes unnoticed by the bot', async () => {
    const port = await freePort();
    server = await startRedisServer(port);
    const url = `redis://127.0.0.1:${port}`;
    const first = await RedisStore.connect(url, { prefix: 'epoch:' });
    const second = await RedisStore.connect(url, { prefix: 'epoch:' });
    const admin = createClient({ url });
    await admin.connect();
    try {
      const one = new StoreEpoch(first);
      const two = new StoreEpoch(second);
      const epoch = await one.start();
      // A second replica adopts the epoch the first wrote.
      expect(await two.start()).toBe(epoch);
      expect(await one.check()).toEqual({ reset: false, epoch });

      await admin.flushAll();
      const seen = await one.check();
      expect(seen).toMatchObject({ reset: true, previous: epoch });
      // The other replica sees the same reset, and adopts the new epoch rather than writing a third.
      expect(await two.check()).toEqual({ reset: true, previous: epoch, epoch: seen.epoch });
      expect(await one.check()).toEqual({ reset: false, epoch: seen.epoch });
      expect(await two.check()).toEqual({ reset: false, epoch: seen.epoch });
    } finally {
      admin.destroy();
      await first.close();
      await second.close();
    }
  });
});
