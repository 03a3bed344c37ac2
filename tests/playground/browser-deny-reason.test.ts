// Denying on the page: Deny asks why (optional), and the reason reaches the kernel and shows on the card.
import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, type TestBrowser } from './helpers/browser.js';
import { openPlayground, say, thread, youAre } from './helpers/playground-page.js';
import { startTestPlayground, type TestPlayground } from './helpers/test-playground.js';

let playground: TestPlayground;
let browser: TestBrowser;
let page: Page;

beforeAll(async () => {
  playground = await startTestPlayground();
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
});

async function waitingCard(service: string) {
  await youAre(page, 'alice');
  await say(page, `@opsbot restart_service service=${service}`);
  const card = thread(page).locator('.card--approval', { hasText: `"service": "${service}"` });
  await card.locator('button', { hasText: 'Approve' }).waitFor();
  await youAre(page, 'bob');
  return card;
}

describe('denying in the browser', () => {
  it('asks why, and shows the reason on the card once the kernel has it', async () => {
    const card = await waitingCard('api');
    await card.locator('button', { hasText: 'Deny' }).click();
    const reason = card.locator('.deny-reason input');
    await reason.waitFor();
    expect(await card.locator('.deny-reason label').textContent()).toContain('optional');
    await reason.fill('not during the release freeze');
    await reason.press('Enter');
    await card
      .locator('.card__outcome', { hasText: /Denied by Bob at \d\d:\d\d · not during the release freeze/ })
      .waitFor();
    expect(await card.locator('button').count()).toBe(0);
    await thread(page).locator('.status--error, .status--warning, .status--success').last().waitFor();
  });

  it('denies without a reason when none is given, and Cancel keeps the card open', async () => {
    const card = await waitingCard('worker');
    await card.locator('button', { hasText: 'Deny' }).click();
    await card.locator('.deny-reason button', { hasText: 'Cancel' }).click();
    expect(await card.locator('.deny-reason').count()).toBe(0);
    await card.locator('.card__actions button', { hasText: 'Approve' }).waitFor();

    await card.locator('button', { hasText: 'Deny' }).click();
    await card.locator('.deny-reason button', { hasText: 'Deny' }).click();
    const outcome = card.locator('.card__outcome', { hasText: /Denied by Bob at \d\d:\d\d/ });
    await outcome.waitFor();
    expect(await outcome.textContent()).not.toContain('·');
  });
});
