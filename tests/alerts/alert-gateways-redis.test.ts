// Two gateways on one Redis receive an HA pair's twin notifications at the same moment, many times over: one root
// per groupKey between them, and one edit and reply for the change, whichever gateway gets which.
import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { systemClock } from '../../agent/clock.js';
import { silentLogger } from '../../agent/logger.js';
import { RedisStore } from '../../agent/store/redis-store.js';
import { AlertGroupRepository } from '../../bot/alerts/alert-group-repository.js';
import { AlertSettingsSchema } from '../../bot/alerts/alert-settings.js';
import { WebhookPayloadSchema } from '../../bot/alerts/alertmanager-payload.js';
import { RecordingChatPort } from '../fakes/recording-chat-port.js';
import { deleteRedisKeys, TEST_REDIS_URL } from '../store/redis-test-keys.js';
import { alertNotifications } from './alert-notifications-rig.js';
import { webhookAlert, webhookPayload } from './webhook-fixtures.js';

const prefix = `opsbot-test:alerts-${randomBytes(4).toString('hex')}:`;
const stores: RedisStore[] = [];
afterEach(async () => {
  await Promise.all(stores.splice(0).map((store) => store.close()));
  await deleteRedisKeys(prefix);
});

async function gateway(chat: RecordingChatPort) {
  const store = await RedisStore.connect(TEST_REDIS_URL, { prefix });
  stores.push(store);
  return alertNotifications({
    settings: AlertSettingsSchema.parse({ channel: 'playground:alerts' }),
    repository: new AlertGroupRepository(store),
    chat,
    clock: systemClock,
    logger: silentLogger,
  }).handle;
}

describe('alert groups across two gateways on Redis', () => {
  it('make one root and one change between them', async () => {
    // One chat platform both gateways post to, as two processes posting to one Slack.
    const chat = new RecordingChatPort();
    const [one, two] = [await gateway(chat), await gateway(chat)];
    const firing = WebhookPayloadSchema.parse(webhookPayload([webhookAlert('db1')]));
    const outcomes = await Promise.all(
      Array.from({ length: 10 }, (_, index) => (index % 2 === 0 ? one : two)(firing)),
    );
    expect(outcomes.filter((outcome) => outcome === 'opened')).toHaveLength(1);
    expect(outcomes.filter((outcome) => outcome === 'duplicate')).toHaveLength(9);
    const joined = WebhookPayloadSchema.parse(webhookPayload([webhookAlert('db1'), webhookAlert('db2')]));
    const changes = await Promise.all([one(joined), two(joined), two(joined)]);
    expect(changes.sort()).toEqual(['changed', 'duplicate', 'duplicate']);
    const roots = chat.posts.filter((post) => post.conversation.threadId === undefined);
    expect(roots).toHaveLength(1);
    expect(chat.posts.filter((post) => post.conversation.threadId === roots[0]!.messageId)).toHaveLength(1);
    expect(roots[0]!.updates).toHaveLength(1);
  });
});
