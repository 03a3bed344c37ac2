// The page while the bot is down: a message sent then says the bot is unreachable, keeps the draft, and goes
// once the bot is back.
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ARTIFACTS, launchBrowser, type TestBrowser } from './helpers/browser.js';
import { channelMessages, message, openPlayground, say, youAre } from './helpers/playground-page.js';
import { startTestPlayground, type TestPlayground } from './helpers/test-playground.js';

let playground: TestPlayground;
let browser: TestBrowser;
let page: Page;

beforeAll(async () => {
  playground = await startTestPlayground();
  browser = await launchBrowser();
  page = await browser.newPage();
  await openPlayground(page, playground.url);
  await youAre(page, 'alice');
}, 60_000);

afterEach(() => {
  // While the bot is down the browser logs its failed requests; they are the test's doing, not the page's.
  const errors = browser.pageErrors
    .splice(0)
    .filter((error) => !/ERR_CONNECTION_REFUSED|Failed to load resource/.test(error));
  expect(errors).toEqual([]);
});

afterAll(async () => {
  await browser?.close();
  await playground?.stop();
});

describe('the playground while the bot is down', () => {
  it('says the bot is unreachable, keeps the draft, and sends it once reconnected', async () => {
    const port = Number(new URL(playground.url).port);
    const dir = playground.dir;
    await playground.stop({ keepData: true });
    await page.locator('#connection:not([data-state="live"])').waitFor();

    await say(page, 'is anyone there?');
    const notice = page.locator('#composer .composer__waiting');
    await notice.waitFor();
    expect(await notice.textContent()).toMatch(
      /opsbot cannot be reached.*kept.*sent when the connection is back/,
    );
    expect(await page.inputValue('#composer-input')).toBe('is anyone there?');
    expect(await page.locator('#toasts').textContent()).not.toContain('Failed to fetch');
    expect(await page.locator('#toasts .toast').count()).toBe(0);
    await page.screenshot({ path: join(ARTIFACTS, 'offline-draft.png') });

    playground = await startTestPlayground({ dir, port });
    await page.locator('#connection[data-state="live"]').waitFor({ timeout: 20_000 });
    await message(channelMessages(page), 'is anyone there?').waitFor();
    expect(await notice.isHidden()).toBe(true);
    expect(await page.inputValue('#composer-input')).toBe('');
    // Sent once, not once per reconnect.
    await page.waitForTimeout(300);
    expect(await message(channelMessages(page), 'is anyone there?').count()).toBe(1);
  }, 60_000);
});
