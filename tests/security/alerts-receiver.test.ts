// attack: the Alertmanager receiver is closed by default, needs its bearer token, and refuses bad bodies with 400
// and a one-line reason, logged with the sender's address, storing and posting nothing. A 5xx (which Alertmanager
// retries) comes only from a Store that is down.
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../agent/clock.js';
import { ErrorCode, SystemError } from '../../agent/errors.js';
import { MemoryStore } from '../../agent/store/memory-store.js';
import { AlertGroupRepository, alertGroupId } from '../../bot/alerts/alert-group-repository.js';
import { SettingsSchema } from '../../bot/config/settings-schema.js';
import { HttpServer } from '../../bot/http/http-server.js';
import { mountAlerts } from '../../bot/services/alerts-service.js';
import { webhookAlert, webhookPayload } from '../alerts/webhook-fixtures.js';
import { RecordingChatPort } from '../fakes/recording-chat-port.js';
import { RecordingLogger } from './helpers/sink-rig.js';

const TOKEN = 'attack-alerts-token-0123456789abcdef0123';
const settings = SettingsSchema.parse({ alerts: { channel: 'playground:alerts' } });

let server: HttpServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function receiver(options: { token?: string; store?: MemoryStore } = {}) {
  const store = options.store ?? new MemoryStore();
  const chat = new RecordingChatPort();
  const logger = new RecordingLogger();
  server = new HttpServer({ host: '127.0.0.1', port: 0, logger });
  mountAlerts({
    opsbot: {
      store,
      settings,
      environment: { OPSBOT_ALERTS_TOKEN: options.token } as never,
    },
    chat,
    http: server,
    logger,
    clock: new ManualClock(Date.UTC(2026, 0, 1, 12, 14)),
    takesEvents: true,
  });
  await server.listen();
  const url = `${server.url}/alerts/alertmanager`;
  const send = (body: string | Buffer, authorization = `Bearer ${TOKEN}`) =>
    fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', authorization }, body });
  const stored = async () =>
    (await new AlertGroupRepository(store).find(alertGroupId('{}:{alertname="DiskFull"}'))) !== undefined;
  return { store, chat, logger, send, stored };
}

const good = () => JSON.stringify(webhookPayload([webhookAlert('db1')]));

describe('attack: the Alertmanager receiver', () => {
  it('is off without OPSBOT_ALERTS_TOKEN: 404, whatever the request carries', async () => {
    const { send, chat } = await receiver();
    const response = await send(good());
    expect(response.status).toBe(404);
    expect(((await response.json()) as { error: string }).error).toContain('OPSBOT_ALERTS_TOKEN');
    expect(chat.posts).toHaveLength(0);
  });

  it('answers a wrong, missing or prefix-only token with 401', async () => {
    const { send, chat, stored } = await receiver({ token: TOKEN });
    for (const authorization of [
      'Bearer wrong',
      '',
      'Bearer',
      `Bearer ${TOKEN.slice(0, -1)}`,
      `Bearer ${TOKEN}x`,
      TOKEN,
    ]) {
      expect((await send(good(), authorization)).status, authorization).toBe(401);
    }
    expect(chat.posts).toHaveLength(0);
    expect(await stored()).toBe(false);
  });

  it.each([
    ['a body that is not JSON', () => '{"version": "4", ', /^the body is not JSON$/],
    ['a body over 1 MB', () => `{"pad": "${'x'.repeat(1_100_000)}"}`, /larger than 1 MB/],
    [
      'another version',
      () => JSON.stringify(webhookPayload([webhookAlert('db1')], { version: '3' })),
      /version "4"/,
    ],
    [
      'missing fields',
      () => JSON.stringify({ ...webhookPayload([webhookAlert('db1')]), groupKey: undefined }),
      /^groupKey: /,
    ],
    [
      'a label set too large to post',
      () =>
        JSON.stringify(
          webhookPayload([
            {
              ...webhookAlert('db1'),
              labels: Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`l${i}`, 'v'.repeat(30)])),
            },
          ]),
        ),
      /too large to post/,
    ],
  ])(
    'refuses %s with 400 and one line, logged with the sender, storing nothing',
    async (_name, body, reason) => {
      const { send, chat, stored, logger } = await receiver({ token: TOKEN });
      const response = await send(body());
      expect(response.status).toBe(400);
      const { error } = (await response.json()) as { error: string };
      expect(error).toMatch(reason);
      expect(error).not.toContain('\n');
      expect(chat.posts).toHaveLength(0);
      expect(await stored()).toBe(false);
      const refusal = logger.lines
        .map((line) => JSON.parse(line))
        .find((line) => line.msg?.includes('refused'));
      expect(refusal?.from).toMatch(/^127\.0\.0\.1:\d+$/);
    },
  );

  it('answers 503 only when the Store is down, and 200 for a good notification', async () => {
    const store = new MemoryStore();
    const { send, chat } = await receiver({ token: TOKEN, store });
    const claim = store.claim.bind(store);
    store.claim = async () => {
      throw new SystemError(ErrorCode.StoreUnavailable, 'the store is offline');
    };
    expect((await send(good())).status).toBe(503);
    expect(chat.posts).toHaveLength(0);
    store.claim = claim;
    const response = await send(good());
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ ok: true, outcome: 'opened' });
    expect((await send(good())).status).toBe(200);
    expect(chat.posts).toHaveLength(1);
  });
});
