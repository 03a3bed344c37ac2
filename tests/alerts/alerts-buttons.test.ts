// An alert group's buttons on Slack, as `npm start` runs it: Ack and Investigate, each checked against the
// clicker's role, audited, and shown on the root; the investigation's answer lands in the thread.
import { afterEach, describe, expect, it } from 'vitest';
import type { Serving } from '../../bot/serve.js';
import { type FakeOpenAIServer, text as modelText, startFakeOpenAIServer } from '../fakes/openai-server.js';
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
const ALICE = 'UALICE';
const CAROL = 'UCAROL';
const ANSWER = 'The disk filled with WAL files; evidence: disk_used_ratio 0.95.';

let slack: FakeSlackApi | undefined;
let model: FakeOpenAIServer | undefined;
let directory: AlertsBotDirectory | undefined;
let bot: Serving | undefined;
let manager: RealAlertmanager | undefined;
afterEach(async () => {
  await manager?.stop();
  await bot?.stop();
  await slack?.close();
  await model?.close();
  directory?.remove();
  bot = slack = directory = manager = model = undefined;
});

const shown = (message: FakeMessage) => renderSlackMessage(message).text;

describe.skipIf(!alertmanagerInstalled)("an alert group's buttons on Slack", () => {
  it('acks and investigates for a role that may, refuses one that may not, and audits each click', async () => {
    slack = await startFakeSlackApi();
    slack.channels.set(CHANNEL, 'alerts');
    slack.addUser({ id: ALICE, name: 'alice', displayName: 'Alice' });
    slack.addUser({ id: CAROL, name: 'carol', displayName: 'Carol' });
    model = await startFakeOpenAIServer();
    model.respond(() => modelText(ANSWER));
    directory = new AlertsBotDirectory(
      [
        'permissions:',
        '  roles:',
        '    oncall: { tools: ["*"], risks: [read], alerts: [ack, investigate] }',
        '  identities:',
        `    'slack:${ALICE}': { roles: [oncall] }`,
        'alerts:',
        `  channel: 'slack:${CHANNEL}'`,
        '  investigate: false',
        '',
      ].join('\n'),
    );
    bot = await directory.serve({
      SLACK_BOT_TOKEN: 'xoxb-alerts-test',
      SLACK_SIGNING_SECRET,
      SLACK_API_URL: slack.apiUrl,
      OPENAI_BASE_URL: model.baseURL,
      OPENAI_MODEL: 'fake-model',
    });
    manager = await RealAlertmanager.start({ url: receiverUrl(bot), token: ALERTS_TOKEN });
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
    const reply = (id: string) => clickReply(api, id);

    await clickButton(api, eventsUrl, CAROL, current(), 'Ack', 'carol-ack', SLACK_SIGNING_SECRET);
    expect(await reply('carol-ack')).toContain('may not ack alert groups');
    await clickButton(api, eventsUrl, ALICE, current(), 'Ack', 'alice-ack', SLACK_SIGNING_SECRET);
    expect(await reply('alice-ack')).toContain('Acked');
    await waitFor('the ack on the root', () =>
      shown(current()).includes('Acked by Alice') ? true : undefined,
    );

    await clickButton(
      api,
      eventsUrl,
      ALICE,
      current(),
      'Investigate',
      'alice-investigate',
      SLACK_SIGNING_SECRET,
    );
    expect(await reply('alice-investigate')).toContain('Investigating in the thread');
    await waitFor('the answer in the thread', () =>
      api.thread(CHANNEL, root.ts).find((message) => shown(message).includes(ANSWER)),
    );
    await waitFor('Run again on the root', () =>
      renderSlackMessage(current()).buttons.includes('Run again') ? true : undefined,
    );

    await bot.stop();
    bot = undefined;
    expect(await auditedAlertActions(directory.storeUrl)).toEqual([
      [`slack:${CAROL}`, 'ack refused'],
      [`slack:${ALICE}`, 'ack done'],
      [`slack:${ALICE}`, 'investigate done'],
    ]);
  }, 60_000);
});
