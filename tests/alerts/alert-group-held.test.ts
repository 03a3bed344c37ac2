// Alertmanager sends nothing for a silenced alert, not even its resolve: the held-alert sweep asks the real
// Alertmanager which alerts it still holds and closes, in the thread, those it no longer has, once they are
// missing twice in a row. An Alertmanager that cannot be reached, or has just restarted empty, closes nothing.
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../agent/clock.js';
import { MemoryStore } from '../../agent/store/memory-store.js';
import { HeldAlertSweep, LEARNED_NOTE } from '../../bot/alerts/alert-group-held.js';
import { AlertGroupRepository, alertGroupId } from '../../bot/alerts/alert-group-repository.js';
import { AlertSettingsSchema } from '../../bot/alerts/alert-settings.js';
import { WebhookPayloadSchema } from '../../bot/alerts/alertmanager-payload.js';
import { createAlertmanagerReader } from '../../tools/index.js';
import { ToolSettingsSchema } from '../../tools/tool-settings-schema.js';
import { RecordingChatPort } from '../fakes/recording-chat-port.js';
import { ManualTimers } from '../manual-timers.js';
import { pollFor } from '../monitoring-servers.js';
import { RecordingLogger } from '../security/helpers/sink-rig.js';
import { alertNotifications } from './alert-notifications-rig.js';
import { alertmanagerInstalled, RealAlertmanager } from './real-alertmanager.js';
import { webhookAlert, webhookPayload } from './webhook-fixtures.js';

const GROUP_KEY = '{}:{alertname="DiskFull"}';
let manager: RealAlertmanager | undefined;
afterEach(async () => {
  await manager?.stop();
  manager = undefined;
});

const NETWORK = ToolSettingsSchema.parse({}).network;
const startsAt = new Date(Date.now() - 60_000).toISOString();
const disk = (instance: string, endsAt?: string) => ({
  labels: { alertname: 'DiskFull', instance },
  annotations: { summary: `Disk on ${instance} is full` },
  startsAt,
  ...(endsAt ? { endsAt } : {}),
});

/** The alerts Alertmanager holds, by instance, with their fingerprints as its webhook sends them. */
async function fingerprints(url: string, count: number): Promise<Map<string, string>> {
  return pollFor(`${count} alerts in Alertmanager`, async () => {
    const alerts = (await (await fetch(`${url}/api/v2/alerts`)).json()) as {
      fingerprint: string;
      labels: Record<string, string>;
    }[];
    if (alerts.length < count) return undefined;
    return new Map(alerts.map((alert) => [alert.labels.instance!, alert.fingerprint]));
  });
}

async function rig(alertmanagerUrl: string) {
  const store = new MemoryStore();
  const clock = new ManualClock(Date.now());
  const repository = new AlertGroupRepository(store, async () => {});
  const chat = new RecordingChatPort();
  const logger = new RecordingLogger();
  const settings = AlertSettingsSchema.parse({ channel: 'playground:alerts' });
  const { notifications, delivery, handle } = alertNotifications({
    settings,
    repository,
    chat,
    clock,
    logger,
  });
  const sweep = new HeldAlertSweep({
    reader: createAlertmanagerReader(
      { url: alertmanagerUrl, headers: {} },
      { network: NETWORK, environment: {} },
    ),
    repository,
    notifications,
    delivery,
    clock,
    logger,
    timers: new ManualTimers(),
  });
  return { repository, chat, logger, handle, delivery, sweep, clock };
}

describe.skipIf(!alertmanagerInstalled)('alert groups Alertmanager stops telling about', () => {
  it('close a silenced alert that resolved, on the second pass, saying how opsbot knows', async () => {
    manager = await RealAlertmanager.start({
      url: 'http://127.0.0.1:9/alerts',
      token: 'unused-token-0123456789abcdef',
    });
    await manager.post([disk('db1'), disk('db2')]);
    const held = await fingerprints(manager.url, 2);
    const { handle, delivery, sweep, chat, repository } = await rig(manager.url);
    const firing = (instances: string[]) =>
      WebhookPayloadSchema.parse(
        webhookPayload(
          instances.map((instance) => webhookAlert(instance, { fingerprint: held.get(instance)! })),
          { groupKey: GROUP_KEY },
        ),
      );
    expect(await handle(firing(['db1', 'db2']))).toBe('opened');

    // Both still held (one silenced through Alertmanager's own API, as a person would): nothing changes.
    const silenced = await fetch(`${manager.url}/api/v2/silences`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        matchers: [{ name: 'instance', value: 'db2', isRegex: false, isEqual: true }],
        startsAt: new Date().toISOString(),
        endsAt: new Date(Date.now() + 3_600_000).toISOString(),
        createdBy: 'test',
        comment: 'by hand',
      }),
    });
    expect(silenced.ok).toBe(true);
    await sweep.pass();
    await sweep.pass();
    expect(chat.posts).toHaveLength(1);

    // db2 resolves while silenced: Alertmanager would send nothing for it.
    await manager.post([disk('db2', new Date(Date.now() - 1_000).toISOString())]);
    await pollFor('db2 gone from Alertmanager', async () => {
      const left = await createAlertmanagerReader(
        { url: manager!.url, headers: {} },
        { network: NETWORK, environment: {} },
      ).heldFingerprints();
      return left.has(held.get('db2')!) ? undefined : true;
    });
    await sweep.pass();
    await delivery.idle();
    expect(chat.posts).toHaveLength(1);
    await sweep.pass();
    await delivery.idle();
    const reply = chat.posts[1]!.message;
    expect(reply).toMatchObject({ kind: 'alert_group', part: 'change', firingCount: 1, note: LEARNED_NOTE });
    expect(
      (await repository.find(alertGroupId(GROUP_KEY)))?.alerts.map((alert) => alert.labels.instance),
    ).toEqual(['db1']);

    // And db1 too: the group resolves in place, on the same note.
    await manager.post([disk('db1', new Date(Date.now() - 1_000).toISOString())]);
    await pollFor('db1 gone from Alertmanager', async () => {
      const left = await createAlertmanagerReader(
        { url: manager!.url, headers: {} },
        { network: NETWORK, environment: {} },
      ).heldFingerprints();
      return left.size === 0 ? true : undefined;
    });
    await sweep.pass();
    await sweep.pass();
    await delivery.idle();
    expect((await repository.find(alertGroupId(GROUP_KEY)))?.status).toBe('resolved');
    expect(chat.posts[0]!.updates.at(-1)).toMatchObject({ status: 'resolved' });
    expect(chat.posts.at(-1)!.message).toMatchObject({
      part: 'change',
      status: 'resolved',
      note: LEARNED_NOTE,
    });
  }, 60_000);

  it('close nothing when Alertmanager cannot be reached, or forgets for one pass, and say why', async () => {
    const { handle, sweep, chat, logger } = await rig('http://127.0.0.1:9');
    const payload = WebhookPayloadSchema.parse(
      webhookPayload([webhookAlert('db1', { fingerprint: 'f1' })], { groupKey: GROUP_KEY }),
    );
    await handle(payload);
    await sweep.pass();
    await sweep.pass();
    expect(chat.posts).toHaveLength(1);
    expect(
      logger.lines.some((line) => line.includes('could not ask Alertmanager which alerts it holds')),
    ).toBe(true);
  });

  it('end a silence on the root once its time is up, so the Silence buttons come back', async () => {
    manager = await RealAlertmanager.start({
      url: 'http://127.0.0.1:9/alerts',
      token: 'unused-token-0123456789abcdef',
    });
    await manager.post([disk('db1')]);
    const held = await fingerprints(manager.url, 1);
    const { handle, delivery, sweep, chat, repository, clock } = await rig(manager.url);
    await handle(
      WebhookPayloadSchema.parse(
        webhookPayload([webhookAlert('db1', { fingerprint: held.get('db1')! })], { groupKey: GROUP_KEY }),
      ),
    );
    const id = alertGroupId(GROUP_KEY);
    const record = (await repository.find(id))!;
    await repository.save({
      ...record,
      silenced: { by: 'Olive', until: clock.now() + 3_600_000, duration: '1h' },
    });
    await sweep.pass();
    expect((await repository.find(id))?.silenced).toBeDefined();
    clock.advance(3_600_001);
    await sweep.pass();
    await delivery.idle();
    expect((await repository.find(id))?.silenced).toBeUndefined();
    expect(chat.posts[0]!.updates.at(-1)).toMatchObject({ buttons: { silence: false } });
    expect(JSON.stringify(chat.posts[0]!.updates.at(-1))).not.toContain('Silenced');
  }, 60_000);
});
