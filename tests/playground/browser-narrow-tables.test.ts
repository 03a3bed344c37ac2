// Tables in a narrow space: in the thread panel and on a phone, every column of disk_usage can be read without
// scrolling sideways (rows fold into label-value lines); the page itself never scrolls sideways.
import { join } from 'node:path';
import type { Locator } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ARTIFACTS, launchBrowser, type TestBrowser } from './helpers/browser.js';
import { message, openPlayground, say, thread, youAre } from './helpers/playground-page.js';
import { startTestPlayground, type TestPlayground } from './helpers/test-playground.js';

let playground: TestPlayground;
let browser: TestBrowser;

beforeAll(async () => {
  playground = await startTestPlayground();
  browser = await launchBrowser();
}, 60_000);

afterEach(() => {
  expect(browser.pageErrors.splice(0)).toEqual([]);
});

afterAll(async () => {
  await browser?.close();
  await playground?.stop();
});

/** Where each of the first row's cells ends, and the edges of its card and of the window. */
async function layout(result: Locator) {
  const inCard = await result.evaluate((article) => {
    const wrap = article.querySelector('.table-wrap')!;
    const cells = [...article.querySelectorAll('tbody tr:first-child td')];
    return {
      card: wrap.getBoundingClientRect().right,
      sideways: wrap.scrollWidth - wrap.clientWidth,
      cells: Object.fromEntries(
        cells.map((cell) => [
          cell.getAttribute('data-label'),
          Math.round(cell.getBoundingClientRect().right),
        ]),
      ),
    };
  });
  const window = await result.page().evaluate<number>('window.innerWidth');
  const page = await result.page().evaluate<number>('document.documentElement.scrollWidth');
  return { ...inCard, window, page };
}

describe('tables in a narrow space', () => {
  for (const [where, width] of [
    ['on a phone', 390],
    ['in the thread panel', 1440],
  ] as const) {
    it(`shows disk_usage's Used and Percent ${where}`, async () => {
      const page = await browser.newPage({ width, height: 860 });
      await openPlayground(page, playground.url);
      await youAre(page, 'alice');
      await say(page, '@opsbot disk_usage paths=/');
      const result = message(thread(page), /is [\d.]+% full/);
      await result.locator('table').waitFor();
      const shown = await layout(result);
      expect(Object.keys(shown.cells)).toEqual(expect.arrayContaining(['Path', 'Used', 'Percent']));
      for (const [label, right] of Object.entries(shown.cells)) {
        expect(right, `${label} ends inside its card`).toBeLessThanOrEqual(Math.ceil(shown.card));
      }
      expect(shown.card).toBeLessThanOrEqual(shown.window);
      expect(shown.sideways).toBeLessThanOrEqual(0);
      expect(shown.page).toBeLessThanOrEqual(shown.window);
      expect(await result.locator('td[data-label="Percent"]').isVisible()).toBe(true);
      await result.screenshot({ path: join(ARTIFACTS, `narrow-table-${width}.png`) });
      await page.close();
    });
  }
});
