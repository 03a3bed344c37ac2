// Without a model, a route's checks run for a new group, like a patrol's, and post their results in its thread;
// a route check naming a tool that does not exist stops the start-up with the key.
import { afterEach, describe, expect, it } from 'vitest';
import type { Serving } from '../../bot/serve.js';
import { type FakeSlackApi, startFakeSlackApi } from '../fakes/slack/fake-slack-api.js';
import type { FakeMessage } from '../fakes/slack/fake-slack-state.js';
import { renderSlackMessage } from '../fakes/slack/render-slack-message.js';
import { type ScriptedTarget, startScriptedTarget } from '../patrols/patrol-serve-rig.js';
import {
  ALERTS_TOKEN,
  AlertsBotDirectory,
  receiverUrl,
  SLACK_SIGNING_SECRET,
  waitFor,
} from './alerts-serve-rig.js';
import { alertmanagerInstalled, RealAlertmanager } from './real-alertmanager.js';

const CHANNEL = 'C0ALERTS';

let slack: FakeSlackApi | undefined;
let target: ScriptedTarget | undefined;
let directory: AlertsBotDirectory | undefined;
let bot: Serving | undefined;
let manager: RealAlertmanager | undefined;
afterEach(async () => {
  await manager?.stop();
  await bot?.stop();
  await slack?.close();
  await target?.close();
  directory?.remove();
  bot = slack = directory = manager = target = undefined;
});

const shown = (message: FakeMessage) => renderSlackMessage(message).text;

function settings(url: string, tool = 'http_check'): string {
  return [
    'alerts:',
    `  channel: 'slack:${CHANNEL}'`,
    '  routes:',
    '    - match: { alertname: ApiDown }',
    '      checks:',
    `        - { id: api, tool: ${tool}, args: { url: '${url}', expected_status: '200' } }`,
    '',
  ].join('\n');
}

const env = () => ({
  SLACK_BOT_TOKEN: 'xoxb-alerts-test',
  SLACK_SIGNING_SECRET,
  SLACK_API_URL: slack!.apiUrl,
});

describe.skipIf(!alertmanagerInstalled)("a route's checks, without a model", () => {
  it("run for a new group and post their result in the group's thread", async () => {
    target = await startScriptedTarget([503]);
    slack = await startFakeSlackApi();
    slack.channels.set(CHANNEL, 'alerts');
    directory = new AlertsBotDirectory(settings(target.url));
    bot = await directory.serve(env());
    manager = await RealAlertmanager.start({ url: receiverUrl(bot), token: ALERTS_TOKEN });
    await manager.post([{ labels: { alertname: 'ApiDown', instance: 'api1' } }]);
    const api = slack;
    const root = await waitFor('the root', () => api.topLevel(CHANNEL)[0]);
    const result = await waitFor('the checks result in the thread', () =>
      api.thread(CHANNEL, root.ts).find((message) => message.ts !== root.ts && /503/.test(shown(message))),
    );
    expect(result.thread_ts).toBe(root.ts);
    expect(target.hits()).toBeGreaterThan(0);
    expect(shown(api.message(CHANNEL, root.ts)!)).toContain("Running the route's checks");
  }, 60_000);

  it('stop the start-up when a check names a tool that does not exist', async () => {
    slack = await startFakeSlackApi();
    directory = new AlertsBotDirectory(settings('http://127.0.0.1:9/health', 'http_chek'));
    await expect(directory.serve(env())).rejects.toThrow(
      /alerts\.routes\[0\]\.checks\[0\]\.tool.*http_chek/s,
    );
  }, 30_000);
});
