// An alert group's Silence buttons on Slack, as `npm start` runs it, through the real Alertmanager: the click is a
// write call of alertmanager_silence made as the clicker, so the policy gate and approvals decide it. An operator's
// click waits on an approval card showing the matchers, an admin approves, and the silence exists in Alertmanager;
// a viewer's click is refused and told why.
import { afterEach, describe, expect, it } from 'vitest';
import type { Serving } from '../../bot/serve.js';
import { type FakeSlackApi, startFakeSlackApi } from '../fakes/slack/fake-slack-api.js';
import type { FakeMessage } from '../fakes/slack/fake-slack-state.js';
import { renderSlackMessage } from '../fakes/slack/render-slack-message.js';
import { clickButton } from '../patrols/patrol-serve-rig.js';
import {
  ALERTS_TOKEN,
  AlertsBotDirectory,
  auditedAlertActions,
  clickReply,
  receiverUrl,
  SLACK_SIGNING_SECRET,
  waitFor,
} from './alerts-serve-rig.js';
import { alertmanagerInstalled, RealAlertmanager } from './real-alertmanager.js';

const CHANNEL = 'C0ALERTS';
const OPERATOR = 'UOLIVE';
const ADMIN = 'UADA';
const VIEWER = 'UVIC';

let slack: FakeSlackApi | undefined;
let directory: AlertsBotDirectory | undefined;
let bot: Serving | undefined;
let manager: RealAlertmanager | undefined;
afterEach(async () => {
  await manager?.stop();
  await bot?.stop();
  await slack?.close();
  directory?.remove();
  bot = slack = directory = manager = undefined;
});

const shown = (message: FakeMessage) => renderSlackMessage(message).text;

interface Silence {
  matchers: { name: string; value: string; isRegex: boolean; isEqual: boolean }[];
  comment: string;
  createdBy: string;
  status: { state: string };
}

function settings(alertmanagerUrl: string): string {
  return [
    'permissions:',
    '  roles:',
    '    operator: { tools: ["*"], risks: [read, write], alerts: [ack] }',
    '    boss: { tools: ["*"], admin: true, approve: ["*"] }',
    '  identities:',
    `    'slack:${OPERATOR}': { roles: [operator] }`,
    `    'slack:${ADMIN}': { roles: [boss] }`,
    `    'slack:${VIEWER}': { roles: [viewer] }`,
    'tools:',
    '  alertmanager:',
    `    url: '${alertmanagerUrl}'`,
    'alerts:',
    `  channel: 'slack:${CHANNEL}'`,
    '  investigate: false',
    '',
  ].join('\n');
}

describe.skipIf(!alertmanagerInstalled)("an alert group's Silence buttons on Slack", () => {
  it('silence through the approval gate for an operator, and refuse a viewer with the reason', async () => {
    slack = await startFakeSlackApi();
    slack.channels.set(CHANNEL, 'alerts');
    slack.addUser({ id: OPERATOR, name: 'olive', displayName: 'Olive' });
    slack.addUser({ id: ADMIN, name: 'ada', displayName: 'Ada' });
    slack.addUser({ id: VIEWER, name: 'vic', displayName: 'Vic' });
    // Alertmanager first, for the settings' tools.alertmanager.url; its webhook then points at the bot.
    manager = await RealAlertmanager.start({
      url: 'http://127.0.0.1:9/alerts/alertmanager',
      token: ALERTS_TOKEN,
    });
    directory = new AlertsBotDirectory(settings(manager.url));
    bot = await directory.serve({
      SLACK_BOT_TOKEN: 'xoxb-alerts-test',
      SLACK_SIGNING_SECRET,
      SLACK_API_URL: slack.apiUrl,
    });
    await manager.retarget({ url: receiverUrl(bot), token: ALERTS_TOKEN });
    await manager.post([
      {
        labels: { alertname: 'DiskFull', instance: 'db1' },
        annotations: { summary: 'Disk on db1 is 95% full' },
        startsAt: new Date(Date.now() - 60_000).toISOString(),
      },
    ]);
    const api = slack;
    const eventsUrl = `${bot.url}/slack/events`;
    const root = await waitFor('the root', () => api.topLevel(CHANNEL)[0]);
    const current = () => api.message(CHANNEL, root.ts)!;
    const thread = () => api.thread(CHANNEL, root.ts);
    const reply = (id: string) => clickReply(api, id);
    expect(renderSlackMessage(current()).buttons).toEqual(['Ack', 'Silence 1h', 'Silence 4h']);

    await clickButton(api, eventsUrl, VIEWER, current(), 'Silence 4h', 'vic-silence', SLACK_SIGNING_SECRET);
    const refused = await reply('vic-silence');
    expect(refused).toContain('Not silenced');
    expect(refused).toContain('viewer');

    await clickButton(
      api,
      eventsUrl,
      OPERATOR,
      current(),
      'Silence 1h',
      'olive-silence',
      SLACK_SIGNING_SECRET,
    );
    expect(await reply('olive-silence')).toContain('Silencing for 1h in the thread');
    const card = await waitFor('the approval card in the thread', () =>
      thread().find((message) => renderSlackMessage(message).buttons.includes('Approve')),
    );
    expect(shown(card)).toContain('alertname="DiskFull"');
    expect(shown(card)).toContain('for 1h');
    // Nothing is silenced before the approval.
    expect(await silences(manager.url)).toEqual([]);

    await clickButton(api, eventsUrl, ADMIN, card, 'Approve', 'ada-approve', SLACK_SIGNING_SECRET);
    const made = await waitFor('the silence in Alertmanager', async () => {
      const active = (await silences(manager!.url)).filter((silence) => silence.status.state === 'active');
      return active.length > 0 ? active : undefined;
    });
    expect(made).toHaveLength(1);
    expect(made[0]!.matchers).toEqual([
      { name: 'alertname', value: 'DiskFull', isRegex: false, isEqual: true },
    ]);
    expect(made[0]!.comment).toContain('Olive');
    expect(made[0]!.comment).toContain('alertname=DiskFull');
    expect(made[0]!.createdBy).toBe('opsbot for Olive');
    await waitFor('the result in the thread', () =>
      thread().find((message) => shown(message).includes('Silenced alertname="DiskFull"')),
    );

    await bot.stop();
    bot = undefined;
    expect(await auditedAlertActions(directory.storeUrl)).toEqual([
      [`slack:${VIEWER}`, 'silence refused'],
      [`slack:${OPERATOR}`, 'silence done'],
    ]);
  }, 60_000);
});

async function silences(alertmanager: string): Promise<Silence[]> {
  return (await fetch(`${alertmanager}/api/v2/silences`)).json() as Promise<Silence[]>;
}
