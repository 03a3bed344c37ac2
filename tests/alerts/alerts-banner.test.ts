// The start-up banner says whether the Alertmanager receiver is on, where its threads go, or how to turn it on.
import { afterEach, describe, expect, it } from 'vitest';
import type { Serving } from '../../bot/serve.js';
import { startUpBanner } from '../../bot/start-up-banner.js';
import { AlertsBotDirectory } from './alerts-serve-rig.js';

let directory: AlertsBotDirectory | undefined;
let bot: Serving | undefined;
afterEach(async () => {
  await bot?.stop();
  directory?.remove();
  bot = directory = undefined;
});

const alertsLine = (serving: Serving) =>
  startUpBanner(serving.startUp).find((line) => line.trimStart().startsWith('alerts:'));

describe('the start-up banner', () => {
  it('says alerts are off without OPSBOT_ALERTS_TOKEN, and the path answers 404', async () => {
    directory = new AlertsBotDirectory(['alerts:', "  channel: 'playground:alerts'", ''].join('\n'));
    bot = await directory.serve({ OPSBOT_ALERTS_TOKEN: '' });
    expect(alertsLine(bot)).toContain('off (set OPSBOT_ALERTS_TOKEN');
    const response = await fetch(`${bot.url}/alerts/alertmanager`, { method: 'POST', body: '{}' });
    expect(response.status).toBe(404);
  });

  it('says where the threads go when on', async () => {
    directory = new AlertsBotDirectory(['alerts:', "  channel: 'playground:alerts'", ''].join('\n'));
    bot = await directory.serve({});
    expect(alertsLine(bot)).toMatch(
      /POST http:\/\/127\.0\.0\.1:\d+\/alerts\/alertmanager → playground:alerts; investigations off/,
    );
  });
});
