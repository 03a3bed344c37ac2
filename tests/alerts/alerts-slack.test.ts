// Alertmanager to Slack, end to end: the real Alertmanager notifies the bot as `npm start` runs it, and the fake
// Slack shows one thread per group whatever arrives twice, through a resend, a second alert, a restart and the
// resolve.
import { afterEach, describe, expect, it } from 'vitest';
import type { Serving } from '../../bot/serve.js';
import { type FakeSlackApi, startFakeSlackApi } from '../fakes/slack/fake-slack-api.js';
import type { FakeMessage } from '../fakes/slack/fake-slack-state.js';
import { renderSlackMessage } from '../fakes/slack/render-slack-message.js';
import {
  ALERTS_TOKEN,
  AlertsBotDirectory,
  receiverUrl,
  SLACK_SIGNING_SECRET,
  waitFor,
} from './alerts-serve-rig.js';
import { alertmanagerInstalled, RealAlertmanager } from './real-alertmanager.js';

const CHANNEL = 'C0ALERTS';
const SETTINGS = ['alerts:', `  channel: 'slack:${CHANNEL}'`, ''].join('\n');

let slack: FakeSlackApi | undefined;
let directory: AlertsBotDirectory | undefined;
let bot: Serving | undefined;
const managers: RealAlertmanager[] = [];
afterEach(async () => {
  await Promise.all(managers.splice(0).map((manager) => manager.stop()));
  await bot?.stop();
  await slack?.close();
  directory?.remove();
  bot = slack = directory = undefined;
});

async function startBot(): Promise<Serving> {
  bot = await directory!.serve({
    SLACK_BOT_TOKEN: 'xoxb-alerts-test',
    SLACK_SIGNING_SECRET,
    SLACK_API_URL: slack!.apiUrl,
  });
  return bot;
}

async function start() {
  slack = await startFakeSlackApi();
  slack.channels.set(CHANNEL, 'alerts');
  directory = new AlertsBotDirectory(SETTINGS);
  const serving = await startBot();
  const manager = await RealAlertmanager.start({ url: receiverUrl(serving), token: ALERTS_TOKEN });
  managers.push(manager);
  return { api: slack, manager };
}

const text = (message: FakeMessage) => renderSlackMessage(message).text;
const ago = (ms: number) => new Date(Date.now() - ms).toISOString();

function diskFull(instance: string, options: { resolved?: boolean } = {}) {
  return {
    labels: { alertname: 'DiskFull', instance, severity: 'critical' },
    annotations: { summary: `Disk on ${instance} is 95% full <!channel>` },
    startsAt: ago(5 * 60_000),
    ...(options.resolved ? { endsAt: ago(1_000) } : {}),
    generatorURL: 'http://prometheus.internal:9090/graph?g0.expr=disk_used_ratio+%3E+0.9&g0.tab=1',
  };
}

/** Waits until Alertmanager has sent `more` webhook notifications beyond `after` (its own count). */
async function sentBeyond(manager: RealAlertmanager, after: number, more = 1): Promise<number> {
  return waitFor(`Alertmanager to notify ${more} more time(s)`, async () => {
    const { sent } = await manager.notifications();
    return sent >= after + more ? sent : undefined;
  });
}

describe.skipIf(!alertmanagerInstalled)('alert groups on Slack through the real Alertmanager', () => {
  it('posts one root, nothing on resends, edits and replies on a change, and resolves in place after a restart', async () => {
    const { api, manager } = await start();
    await manager.post([diskFull('db1')]);
    const root = await waitFor('the root', () => api.topLevel(CHANNEL)[0]);
    expect(text(root)).toContain('FIRING · alertname=DiskFull · 1 alert');
    expect(text(root)).toContain('Disk on db1 is 95% full');
    // Outside text stays inert: the annotation's channel ping reaches Slack broken.
    expect(root.blocks.map((block) => JSON.stringify(block)).join('')).not.toContain('<!channel>');
    expect(text(root)).toContain('http://prometheus.internal:9090/graph');

    // repeat_interval resends of the same firing set post nothing.
    const firstSent = (await manager.notifications()).sent;
    await sentBeyond(manager, firstSent, 2);
    expect(api.topLevel(CHANNEL)).toHaveLength(1);
    expect(api.thread(CHANNEL, root.ts)).toHaveLength(1);
    expect(root.history).toHaveLength(0);

    // A second alert joins: the root is edited, and one reply says so.
    await manager.post([diskFull('db1'), diskFull('db2')]);
    const joined = await waitFor('the thread reply for db2', () => api.thread(CHANNEL, root.ts)[1]);
    expect(text(joined)).toContain('Joined (1)');
    expect(text(joined)).toContain('instance=db2');
    expect(text(api.message(CHANNEL, root.ts)!)).toContain('2 alerts');

    // A restart in between: a new process over the same store, which Alertmanager now notifies.
    await bot!.stop();
    const restarted = await startBot();
    await manager.retarget({ url: receiverUrl(restarted), token: ALERTS_TOKEN });
    const beforeResend = (await manager.notifications()).sent;
    await sentBeyond(manager, beforeResend, 2);
    expect(api.topLevel(CHANNEL)).toHaveLength(1);
    expect(api.thread(CHANNEL, root.ts)).toHaveLength(2);

    // Both resolve: the root turns RESOLVED in place, and a reply says so.
    await manager.post([diskFull('db1', { resolved: true }), diskFull('db2', { resolved: true })]);
    const resolved = await waitFor('the resolved reply', () => api.thread(CHANNEL, root.ts)[2]);
    expect(text(resolved)).toContain('All alerts resolved after');
    expect(text(api.message(CHANNEL, root.ts)!)).toMatch(/RESOLVED · alertname=DiskFull · after \d+ min/);
    expect(api.topLevel(CHANNEL)).toHaveLength(1);
    expect((await manager.notifications()).failed).toBeGreaterThanOrEqual(0);
  }, 60_000);

  it('posts a root Slack refused once the retry is due, with Alertmanager told it was taken', async () => {
    const { api, manager } = await start();
    api.failOnce('chat.postMessage', 'internal_error');
    await manager.post([diskFull('db1')]);
    await sentBeyond(manager, 0, 1);
    // Alertmanager got its 200 at once: the change is stored, and the post is the bot's to retry.
    expect((await manager.notifications()).failed).toBe(0);
    const root = await waitFor('the root, posted by the retry', () => api.topLevel(CHANNEL)[0], 20_000);
    expect(text(root)).toContain('FIRING · alertname=DiskFull · 1 alert');
    await sentBeyond(manager, (await manager.notifications()).sent, 1);
    expect(api.topLevel(CHANNEL)).toHaveLength(1);
  }, 60_000);

  it('makes one root of the same notification from an HA pair of Alertmanagers', async () => {
    const { api, manager } = await start();
    const twin = await RealAlertmanager.start({ url: receiverUrl(bot!), token: ALERTS_TOKEN });
    managers.push(twin);
    await Promise.all([manager.post([diskFull('db1')]), twin.post([diskFull('db1')])]);
    const root = await waitFor('the root', () => api.topLevel(CHANNEL)[0]);
    await sentBeyond(twin, 0, 2);
    await sentBeyond(manager, 0, 2);
    expect(api.topLevel(CHANNEL)).toHaveLength(1);
    expect(api.thread(CHANNEL, root.ts)).toHaveLength(1);
    expect(root.history).toHaveLength(0);
  }, 60_000);

  it('answers a wrong or missing token with 401, and posts nothing', async () => {
    await start();
    const body = JSON.stringify({ version: '4' });
    for (const authorization of ['Bearer wrong-token', '', `Basic ${ALERTS_TOKEN}`]) {
      const response = await fetch(receiverUrl(bot!), {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(authorization ? { authorization } : {}) },
        body,
      });
      expect(response.status).toBe(401);
    }
    expect(slack!.topLevel(CHANNEL)).toHaveLength(0);
  }, 30_000);
});
