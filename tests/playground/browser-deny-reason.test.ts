// Denying on the page: Deny asks why (optional), and the reason reaches the kernel and shows on the card.
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { useBrowserPlayground } from './helpers/browser-playground.js';
import { say, thread, youAre } from './helpers/playground-page.js';

let page: Page;

useBrowserPlayground({}, (it) => {
  page = it.page;
});

async function waitingCard(service: string) {
  await youAre(page, 'alice');
  await say(page, `@opsbot restart_service service=${service}`);
  const card = thread(page).locator('.card--approval', { hasText: `"service": "${service}"` });
  await card.locator('button', { hasText: /^Approve$/ }).waitFor();
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
    await card.locator('.card__actions button', { hasText: /^Approve$/ }).waitFor();

    await card.locator('button', { hasText: 'Deny' }).click();
    await card.locator('.deny-reason button', { hasText: 'Deny' }).click();
    const outcome = card.locator('.card__outcome', { hasText: /Denied by Bob at \d\d:\d\d/ });
    await outcome.waitFor();
    expect(await outcome.textContent()).not.toContain('·');
  });
});
