// One alert group on Slack through the real Alertmanager, as `npm start` runs the bot: Olive the operator, Ada the
// admin and Vic the viewer, `tools.alertmanager.url` set so the root offers Silence, and helpers to click on it.
import { type FakeSlackApi, startFakeSlackApi } from '../fakes/slack/fake-slack-api.js';
import type { FakeMessage } from '../fakes/slack/fake-slack-state.js';
import { clickButton } from '../patrols/patrol-serve-rig.js';
import {
  ALERTS_TOKEN,
  AlertsBotDirectory,
  clickReply,
  receiverUrl,
  SLACK_SIGNING_SECRET,
  waitFor,
} from './alerts-serve-rig.js';
import { RealAlertmanager } from './real-alertmanager.js';

export const CHANNEL = 'C0ALERTS';
export const OPERATOR = 'UOLIVE';
export const ADMIN = 'UADA';
export const VIEWER = 'UVIC';

function settings(alertmanagerUrl: string, investigate: boolean): string {
  return [
    'permissions:',
    '  roles:',
    '    operator: { tools: ["*"], risks: [read, write], alerts: [ack, investigate] }',
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
    `  investigate: ${investigate}`,
    '',
  ].join('\n');
}

export interface SlackAlertGroup {
  api: FakeSlackApi;
  manager: RealAlertmanager;
  directory: AlertsBotDirectory;
  eventsUrl: string;
  root: FakeMessage;
  /** The root as it stands now. */
  current(): FakeMessage;
  /** The root's thread, the root first. */
  thread(): FakeMessage[];
  click(user: string, message: FakeMessage, label: string, triggerId: string): Promise<void>;
  /** What the bot told the clicker of `triggerId`. */
  reply(triggerId: string): Promise<string>;
  /** Stops the bot alone, so a test can read its store (`directory.storeUrl`); stop() does the rest. */
  stopBot(): Promise<void>;
  stop(): Promise<void>;
}

/** Starts everything and posts one DiskFull alert; resolves once its root is in the channel. */
export async function startSlackAlertGroup(options: { modelUrl?: string } = {}): Promise<SlackAlertGroup> {
  const api = await startFakeSlackApi();
  api.channels.set(CHANNEL, 'alerts');
  api.addUser({ id: OPERATOR, name: 'olive', displayName: 'Olive' });
  api.addUser({ id: ADMIN, name: 'ada', displayName: 'Ada' });
  api.addUser({ id: VIEWER, name: 'vic', displayName: 'Vic' });
  // Alertmanager first, for the settings' tools.alertmanager.url; its webhook then points at the bot.
  const manager = await RealAlertmanager.start({
    url: 'http://127.0.0.1:9/alerts/alertmanager',
    token: ALERTS_TOKEN,
  });
  const directory = new AlertsBotDirectory(settings(manager.url, options.modelUrl !== undefined));
  const bot = await directory.serve({
    SLACK_BOT_TOKEN: 'xoxb-alerts-test',
    SLACK_SIGNING_SECRET,
    SLACK_API_URL: api.apiUrl,
    ...(options.modelUrl ? { OPENAI_BASE_URL: options.modelUrl, OPENAI_MODEL: 'fake-model' } : {}),
  });
  await manager.retarget({ url: receiverUrl(bot), token: ALERTS_TOKEN });
  await manager.post([
    {
      labels: { alertname: 'DiskFull', instance: 'db1' },
      annotations: { summary: 'Disk on db1 is 95% full' },
      startsAt: new Date(Date.now() - 60_000).toISOString(),
    },
  ]);
  const eventsUrl = `${bot.url}/slack/events`;
  const root = await waitFor('the root', () => api.topLevel(CHANNEL)[0]);
  return {
    api,
    manager,
    directory,
    eventsUrl,
    root,
    current: () => api.message(CHANNEL, root.ts)!,
    thread: () => api.thread(CHANNEL, root.ts),
    click: (user, message, label, triggerId) =>
      clickButton(api, eventsUrl, user, message, label, triggerId, SLACK_SIGNING_SECRET),
    reply: (triggerId) => clickReply(api, triggerId),
    stopBot: () => bot.stop(),
    async stop() {
      await manager.stop();
      await bot.stop();
      await api.close();
      directory.remove();
    },
  };
}
