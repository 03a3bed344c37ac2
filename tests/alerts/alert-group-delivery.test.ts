// An alert group's posts follow its saved change: a chat platform that fails delays them and loses none, a process
// that dies before posting leaves them for the next one, and a slow post does not hold up the next notification.
import { describe, expect, it } from 'vitest';
import type { ChatPort, MessageRef, OutboundMessage } from '../../agent/chat-port.js';
import { ManualClock } from '../../agent/clock.js';
import type { Conversation } from '../../agent/conversation.js';
import { silentLogger } from '../../agent/logger.js';
import { MemoryStore } from '../../agent/store/memory-store.js';
import { AlertGroupDelivery } from '../../bot/alerts/alert-group-delivery.js';
import { AlertGroupRepository, alertGroupId } from '../../bot/alerts/alert-group-repository.js';
import { MAX_POST_ATTEMPTS, RETRY_FIRST_MS } from '../../bot/alerts/alert-group-state.js';
import { AlertNotifications } from '../../bot/alerts/alert-notifications.js';
import { AlertSettingsSchema } from '../../bot/alerts/alert-settings.js';
import { WebhookPayloadSchema } from '../../bot/alerts/alertmanager-payload.js';
import { RecordingChatPort } from '../fakes/recording-chat-port.js';
import { ManualTimers } from '../manual-timers.js';
import { RecordingLogger } from '../security/helpers/sink-rig.js';
import { handledBy } from './alert-notifications-rig.js';
import { webhookAlert, webhookPayload } from './webhook-fixtures.js';

const SETTINGS = AlertSettingsSchema.parse({ channel: 'playground:alerts' });
const firing = (...instances: string[]) =>
  WebhookPayloadSchema.parse(webhookPayload(instances.map((instance) => webhookAlert(instance))));
const GROUP = alertGroupId(firing('db1').groupKey);

function rig(
  chat: ChatPort,
  store = new MemoryStore(),
  clock = new ManualClock(Date.parse('2026-01-01T12:00:00Z')),
) {
  const repository = new AlertGroupRepository(store, async () => {});
  const timers = new ManualTimers();
  const logger = new RecordingLogger();
  let failed = 0;
  const delivery = new AlertGroupDelivery({
    settings: SETTINGS,
    repository,
    chat,
    clock,
    logger,
    timers,
    metrics: { alertPostFailed: () => void failed++ },
    buttons: () => ({ investigateButton: false, silenceButtons: false, now: clock.now() }),
  });
  const notifications = new AlertNotifications({
    settings: SETTINGS,
    repository,
    delivery,
    clock,
    logger: silentLogger,
  });
  const handle = handledBy(notifications, delivery);
  return {
    store,
    clock,
    repository,
    timers,
    logger,
    delivery,
    notifications,
    handle,
    failures: () => failed,
  };
}

const roots = (chat: RecordingChatPort) =>
  chat.posts.filter((post) => post.conversation.threadId === undefined);
const replies = (chat: RecordingChatPort) =>
  chat.posts.filter((post) => post.conversation.threadId !== undefined);

describe("an alert group's posts", () => {
  it('are kept when the chat platform fails, and made by the sweep once their retry is due', async () => {
    const chat = new RecordingChatPort();
    chat.failNextPosts = 2;
    const { handle, delivery, clock, repository, logger, failures } = rig(chat);
    expect(await handle(firing('db1'))).toBe('opened');
    expect(roots(chat)).toHaveLength(0);
    const saved = await repository.find(GROUP);
    expect(saved?.pending).toMatchObject({
      root: 'post',
      attempts: 1,
      lastError: 'chat platform unavailable',
    });
    expect(saved?.pending?.retryAt).toBe(clock.now() + RETRY_FIRST_MS);
    expect(logger.lines.some((line) => line.includes('saved and tried again'))).toBe(true);
    // Not due yet: the sweep leaves it.
    expect(await delivery.sweep()).toBe(0);
    clock.advance(RETRY_FIRST_MS);
    expect(await delivery.sweep()).toBe(1);
    await delivery.idle();
    // The second try failed too: the wait doubled.
    expect((await repository.find(GROUP))?.pending).toMatchObject({
      attempts: 2,
      retryAt: clock.now() + 2 * RETRY_FIRST_MS,
    });
    clock.advance(2 * RETRY_FIRST_MS);
    await delivery.sweep();
    await delivery.idle();
    expect(roots(chat)).toHaveLength(1);
    expect(roots(chat)[0]!.message).toMatchObject({ kind: 'alert_group', part: 'root', status: 'firing' });
    expect((await repository.find(GROUP))?.pending).toBeUndefined();
    expect((await repository.find(GROUP))?.root.messageId).toBe(roots(chat)[0]!.messageId);
    expect(failures()).toBe(2);
  });

  it('tell a change that came while the root could not be posted on the root itself, with no reply for it', async () => {
    const chat = new RecordingChatPort();
    chat.failNextPosts = 1;
    const { handle, delivery, clock } = rig(chat);
    await handle(firing('db1'));
    expect(await handle(firing('db1', 'db2'))).toBe('changed');
    clock.advance(60_000);
    await delivery.sweep();
    await delivery.idle();
    expect(roots(chat)).toHaveLength(1);
    expect(roots(chat)[0]!.message).toMatchObject({ firingCount: 2 });
    expect(replies(chat)).toHaveLength(0);
  });

  it('post a failed reply later, in order, after the root was edited', async () => {
    const chat = new RecordingChatPort();
    const { handle, delivery, clock, repository } = rig(chat);
    await handle(firing('db1'));
    chat.failNextThreadPosts = 2;
    await handle(firing('db1', 'db2'));
    expect(roots(chat)[0]!.updates).toHaveLength(1);
    expect(replies(chat)).toHaveLength(0);
    // A new notification tries at once; it fails too, and the newer change's reply waits behind the first.
    await handle(firing('db2'));
    expect(replies(chat)).toHaveLength(0);
    expect((await repository.find(GROUP))?.pending?.replies).toHaveLength(2);
    clock.advance(2 * RETRY_FIRST_MS);
    await delivery.sweep();
    await delivery.idle();
    const told = replies(chat).map((post) => post.message);
    expect(told).toHaveLength(2);
    expect(told[0]).toMatchObject({ part: 'change', firingCount: 2 });
    expect(told[1]).toMatchObject({ part: 'change', firingCount: 1 });
    expect((await repository.find(GROUP))?.pending).toBeUndefined();
  });

  it('left by a process that died before posting are made by the next one when it starts', async () => {
    const store = new MemoryStore();
    const crashed = rig(new RecordingChatPort(), store);
    // The change is saved and answered; this process dies before its posts are made.
    const stillborn = new AlertNotifications({
      settings: SETTINGS,
      repository: crashed.repository,
      delivery: { deliverSoon: () => {} },
      clock: crashed.clock,
      logger: silentLogger,
    });
    expect(await stillborn.receive(firing('db1'))).toBe('opened');
    const chat = new RecordingChatPort();
    const next = rig(chat, store, crashed.clock);
    next.delivery.start();
    next.timers.fire();
    await expect.poll(() => roots(chat).length).toBe(1);
    await next.delivery.stop();
    expect((await next.repository.find(GROUP))?.pending).toBeUndefined();
  });

  it('do not hold up the next notification of the group while a post is slow', async () => {
    const chat = new GatedChatPort();
    const { notifications, delivery } = rig(chat);
    expect(await notifications.receive(firing('db1'))).toBe('opened');
    await expect.poll(() => chat.waiting).toBe(1);
    // The root's post hangs (Slack pacing a busy channel): the next notification is still stored and answered.
    expect(await notifications.receive(firing('db1', 'db2'))).toBe('changed');
    chat.open();
    await delivery.idle();
    expect(chat.recorded.posts.filter((post) => post.conversation.threadId === undefined)).toHaveLength(1);
    // The root was posted from the first notification, then edited to show both; no reply for a change it never showed.
    const root = chat.recorded.posts[0]!;
    expect(root.updates.at(-1)).toMatchObject({ firingCount: 2 });
    expect(chat.recorded.posts).toHaveLength(1);
  });

  it('are given up after a day of failures, saying so, and the next change posts the root again', async () => {
    const chat = new RecordingChatPort();
    chat.failNextPosts = MAX_POST_ATTEMPTS;
    const { handle, delivery, clock, repository, logger } = rig(chat);
    await handle(firing('db1'));
    for (let attempt = 1; attempt < MAX_POST_ATTEMPTS; attempt++) {
      clock.advance(10 * 60_000);
      await delivery.sweep();
      await delivery.idle();
    }
    expect((await repository.find(GROUP))?.pending).toBeUndefined();
    expect(logger.lines.some((line) => line.includes('given up'))).toBe(true);
    await handle(firing('db1', 'db2'));
    expect(roots(chat)).toHaveLength(1);
    expect(roots(chat)[0]!.message).toMatchObject({ firingCount: 2 });
  });
});

/** A ChatPort whose posts wait until the test opens it, as a post waits in Slack's pacing queue. */
class GatedChatPort implements ChatPort {
  readonly recorded = new RecordingChatPort();
  waiting = 0;
  private gate: Promise<void>;
  private release = () => {};
  constructor() {
    this.gate = new Promise((resolve) => {
      this.release = resolve;
    });
  }
  open(): void {
    this.release();
  }
  async post(conversation: Conversation, message: OutboundMessage): Promise<MessageRef> {
    this.waiting += 1;
    await this.gate;
    return this.recorded.post(conversation, message);
  }
  update(ref: MessageRef, message: OutboundMessage): Promise<void> {
    return this.recorded.update(ref, message);
  }
}
