// A patrol report in the playground, in Chromium: the whole bot with a patrol whose real local HTTP target fails;
// the report arrives in #ops as a card with its buttons, a viewer's Ack is refused, and Alice's Ack shows on it.
import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type ScriptedTarget, startScriptedTarget } from '../patrols/patrol-serve-rig.js';
import { launchBrowser, type TestBrowser } from './helpers/browser.js';
import { channelMessages, openPlayground, say, youAre } from './helpers/playground-page.js';
import { startTestPlayground, type TestPlayground } from './helpers/test-playground.js';

let target: ScriptedTarget;
let playground: TestPlayground;
let browser: TestBrowser;
let page: Page;

beforeAll(async () => {
  target = await startScriptedTarget([503]);
  playground = await startTestPlayground({
    moreSettings: [
      'patrols:',
      '  web:',
      "    schedule: '0 0 1 1 *'",
      "    channel: 'playground:ops'",
      '    checks:',
      `      - { id: api, tool: http_check, args: { url: '${target.url}', expected_status: '200' } }`,
      '',
    ].join('\n'),
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
  await target?.close();
});

describe('a patrol report in the playground', () => {
  it('arrives as a card with its buttons, and Ack by an allowed person shows on the card', async () => {
    await youAre(page, 'alice');
    await say(page, '/ops patrol run web');
    await page.locator('#messages .msg--ephemeral', { hasText: 'Running patrol web now' }).waitFor();
    const card = channelMessages(page).locator('.card--patrol_report');
    await card.waitFor();
    expect(await card.locator('.card__title').textContent()).toContain('CRITICAL · web');
    expect(await card.textContent()).toMatch(/api.*\(http_check\) failing, critical/);
    expect(await card.locator('.card__actions button').allTextContents()).toEqual([
      'Ack',
      'Snooze 1h',
      'Snooze 4h',
      'Snooze 1d',
      'Run again',
    ]);
    expect(await card.getAttribute('class')).toContain('card--tone-error');

    await youAre(page, 'carol');
    await card.getByRole('button', { name: 'Ack', exact: true }).click();
    await page.locator('#messages .msg--ephemeral', { hasText: 'may not ack patrol reports' }).waitFor();
    expect(await card.textContent()).not.toContain('Acked by');

    await youAre(page, 'alice');
    await card.getByRole('button', { name: 'Ack', exact: true }).click();
    await card.getByText(/Acked by Alice/).waitFor();
    expect(await card.locator('.card__actions button').allTextContents()).toEqual([
      'Snooze 1h',
      'Snooze 4h',
      'Snooze 1d',
      'Run again',
    ]);
  });
});
