// The receiver's metrics on /metrics, through the whole bot: notifications by outcome, duplicates, groups open,
// and the requests refused. The notifications are posted as Alertmanager sends them.
import { afterEach, describe, expect, it } from 'vitest';
import type { Serving } from '../../bot/serve.js';
import { ALERTS_TOKEN, AlertsBotDirectory, receiverUrl } from './alerts-serve-rig.js';
import { webhookAlert, webhookPayload } from './webhook-fixtures.js';

let directory: AlertsBotDirectory | undefined;
let bot: Serving | undefined;
afterEach(async () => {
  await bot?.stop();
  directory?.remove();
  bot = directory = undefined;
});

function sample(metrics: string, series: string): number {
  const line = metrics.split('\n').find((candidate) => candidate.startsWith(`${series} `));
  return line === undefined ? Number.NaN : Number(line.slice(series.length + 1));
}

describe('the alert metrics', () => {
  it('count notifications by outcome, duplicates, refusals and the groups open', async () => {
    directory = new AlertsBotDirectory(['alerts:', "  channel: 'playground:alerts'", ''].join('\n'));
    bot = await directory.serve({ OPSBOT_METRICS: 'on', OPSBOT_PLAYGROUND: 'on' });
    const post = (body: unknown, token = ALERTS_TOKEN) =>
      fetch(receiverUrl(bot!), {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: JSON.stringify(body),
      });
    const firing = webhookPayload([webhookAlert('db1')]);
    expect((await post(firing)).status).toBe(200);
    expect((await post(firing)).status).toBe(200);
    expect((await post(firing)).status).toBe(200);
    expect((await post({ version: '3' })).status).toBe(400);
    expect((await post(firing, 'wrong')).status).toBe(401);
    const metrics = await (await fetch(`${bot.url}/metrics`)).text();
    expect(sample(metrics, 'opsbot_alert_notifications_total{outcome="opened"}')).toBe(1);
    expect(sample(metrics, 'opsbot_alert_notifications_total{outcome="duplicate"}')).toBe(2);
    expect(sample(metrics, 'opsbot_alert_notifications_duplicate_total')).toBe(2);
    expect(sample(metrics, 'opsbot_alert_notifications_total{outcome="refused"}')).toBe(1);
    expect(sample(metrics, 'opsbot_alert_notifications_total{outcome="unauthorized"}')).toBe(1);
    expect(sample(metrics, 'opsbot_alert_groups_open')).toBe(1);
    expect(sample(metrics, 'opsbot_alert_investigations_started_total{how="automatic"}')).toBeNaN();
  }, 30_000);

  it('count the posts that failed and the groups still to show, and /readyz says how many wait', async () => {
    // The channel is on Slack, which this bot does not run: every post fails, and is kept for a retry.
    directory = new AlertsBotDirectory(['alerts:', "  channel: 'slack:C0NOWHERE'", ''].join('\n'));
    bot = await directory.serve({ OPSBOT_METRICS: 'on', OPSBOT_PLAYGROUND: 'on' });
    const response = await fetch(receiverUrl(bot), {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${ALERTS_TOKEN}` },
      body: JSON.stringify(webhookPayload([webhookAlert('db1')])),
    });
    expect(response.status).toBe(200);
    await expect
      .poll(async () =>
        sample(await (await fetch(`${bot!.url}/metrics`)).text(), 'opsbot_alert_posts_failed_total'),
      )
      .toBe(1);
    const metrics = await (await fetch(`${bot.url}/metrics`)).text();
    expect(sample(metrics, 'opsbot_alert_groups_pending_posts')).toBe(1);
    const ready = await (await fetch(`${bot.url}/readyz`)).text();
    expect(ready).toContain('1 alert group(s) with posts still to make');
  }, 30_000);
});
