// An alert group in the playground, in Chromium: the whole bot takes an Alertmanager notification for
// playground:ops; the root arrives as a card with Ack and Silence, a viewer's Ack and Silence are refused, an
// admin's Ack shows on the card, and an operator who may write without approval silences it in the real
// Alertmanager at once.
import { mkdirSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { webhookAlert, webhookPayload } from '../alerts/webhook-fixtures.js';
import {
  ALERTMANAGER,
  monitoringServersInstalled,
  pollFor,
  type RunningServer,
  startAlertmanager,
} from '../monitoring-servers.js';
import { launchBrowser, type TestBrowser } from './helpers/browser.js';
import { channelMessages, openPlayground, youAre } from './helpers/playground-page.js';
import { startTestPlayground, type TestPlayground } from './helpers/test-playground.js';

const TOKEN = 'browser-alerts-token-0123456789abcdef012345';

const installed = monitoringServersInstalled([ALERTMANAGER]);

let alertmanager: RunningServer | undefined;
let playground: TestPlayground;
let browser: TestBrowser;
let page: Page;

beforeAll(async () => {
  if (installed) alertmanager = await startAlertmanager();
  playground = await startTestPlayground({
    moreSettings: ['alerts:', "  channel: 'playground:ops'", ''].join('\n'),
    ...(alertmanager ? { moreTools: `  alertmanager: { url: '${alertmanager.url}' }` } : {}),
    env: { OPSBOT_ALERTS_TOKEN: TOKEN },
  });
  browser = await launchBrowser();
  page = await browser.newPage();
  await openPlayground(page, playground.url);
}, 60_000);

afterEach(() => {
  expect(browser.pageErrors.splice(0)).toEqual([]);
});

afterAll(async () => {
  await browser?.close();
  await playground?.stop();
  await alertmanager?.close();
});

describe('an alert group in the playground', () => {
  it('arrives as a card with Ack, refused for a viewer and shown for an admin', async () => {
    const alert = webhookAlert('db1');
    alert.annotations.summary = 'Disk on db1 is 95% full <script>alert(1)</script> @here';
    const response = await fetch(`${playground.url}/alerts/alertmanager`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
      body: JSON.stringify(webhookPayload([alert, webhookAlert('db2')])),
    });
    expect(response.status).toBe(200);
    const card = channelMessages(page).locator('.card--alert_group');
    await card.waitFor();
    expect(await card.locator('.card__title').textContent()).toBe(
      '🔴 FIRING · alertname=DiskFull · 2 alerts',
    );
    expect(await card.textContent()).toContain('<script>alert(1)</script>');
    expect(await card.locator('script').count()).toBe(0);
    expect(await card.locator('.card__actions button').allTextContents()).toEqual(
      alertmanager ? ['Ack', 'Silence 1h', 'Silence 4h'] : ['Ack'],
    );
    expect(await card.getAttribute('class')).toContain('card--tone-error');
    // The generatorURL is a link to Prometheus, opened apart from the page.
    const link = card.locator('.msg__footer a');
    expect(await link.getAttribute('href')).toBe(
      'http://prometheus:9090/graph?g0.expr=disk_used_ratio+%3E+0.9&g0.tab=1',
    );
    expect(await link.getAttribute('rel')).toBe('noopener noreferrer nofollow');
    mkdirSync('test-artifacts', { recursive: true });
    await page.screenshot({ path: 'test-artifacts/playground-alert-group.png' });

    await youAre(page, 'carol');
    await card.getByRole('button', { name: 'Ack', exact: true }).click();
    await page.locator('#messages .msg--ephemeral', { hasText: 'may not ack alert groups' }).waitFor();

    await youAre(page, 'bob');
    await card.getByRole('button', { name: 'Ack', exact: true }).click();
    await card.getByText(/Acked by Bob/).waitFor();
    expect(await card.locator('.card__actions button').allTextContents()).toEqual(
      alertmanager ? ['Silence 1h', 'Silence 4h'] : [],
    );
  });

  it.skipIf(!installed)(
    'silences from the card: refused for a viewer, at once for a role that writes without approval',
    async () => {
      const card = channelMessages(page).locator('.card--alert_group');
      await youAre(page, 'carol');
      await card.getByRole('button', { name: 'Silence 4h', exact: true }).click();
      await page
        .locator('#messages .msg--ephemeral', { hasText: 'Not silenced: Your role (viewer)' })
        .waitFor();

      await youAre(page, 'alice');
      await card.getByRole('button', { name: 'Silence 1h', exact: true }).click();
      await page
        .locator('#messages .msg--ephemeral', { hasText: 'Silencing for 1h in the thread' })
        .waitFor();
      const made = await pollFor('the silence in Alertmanager', async () => {
        const silences = (await (await fetch(`${alertmanager!.url}/api/v2/silences`)).json()) as {
          createdBy: string;
          matchers: { name: string; value: string }[];
        }[];
        return silences[0];
      });
      expect(made.createdBy).toBe('opsbot for Alice');
      expect(made.matchers.map((matcher) => `${matcher.name}=${matcher.value}`)).toEqual([
        'alertname=DiskFull',
      ]);
      await page.screenshot({ path: 'test-artifacts/playground-alert-silence.png' });
    },
  );
});
