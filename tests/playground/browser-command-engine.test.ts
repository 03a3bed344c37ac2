// The playground in Chromium with no model: the command engine answers mentions and /ops commands, live.
import { copyFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { ARTIFACTS, type TestBrowser } from './helpers/browser.js';
import { useBrowserPlayground } from './helpers/browser-playground.js';
import { channelMessages, message, openPlayground, say, thread, youAre } from './helpers/playground-page.js';
import type { TestPlayground } from './helpers/test-playground.js';

let playground: TestPlayground;
let browser: TestBrowser;
let page: Page;

useBrowserPlayground({}, (it) => ({ playground, browser, page } = it));

describe('playground in the browser, command engine', () => {
  it('explains how to set a model when none is configured', async () => {
    const banner = page.locator('#model-banner');
    await expect(banner.isVisible()).resolves.toBe(true);
    const text = await banner.textContent();
    for (const part of ['OPENAI_BASE_URL', 'OPENAI_API_KEY', 'http://127.0.0.1:11434/v1', 'vLLM']) {
      expect(text).toContain(part);
    }
    await expect(page.locator('#engine-text').textContent()).resolves.toMatch(/command engine/i);
  });

  it('answers a mention in a thread, with the result as a table', async () => {
    await youAre(page, 'alice');
    await say(page, '@opsbot system_stats');
    await message(channelMessages(page), '@opsbot system_stats')
      .locator('.thread-summary', { hasText: 'Done' })
      .waitFor();
    await say(page, '@opsbot disk_usage paths=/');
    const panel = thread(page);
    await panel.locator('.status--success').waitFor();
    const result = message(panel, /is [\d.]+% full/);
    await result.locator('table').waitFor();
    const headers = await result.locator('th').allInnerTexts();
    expect(headers.map((header) => header.toLowerCase())).toEqual(
      expect.arrayContaining(['path', 'used', 'total']),
    );
    expect(await result.locator('td').first().textContent()).toBe('/');
    // The channel shows the mention with a summary of its thread.
    const root = message(channelMessages(page), '@opsbot disk_usage paths=/');
    await root.locator('.thread-summary', { hasText: '1 reply' }).waitFor();
    await root.locator('.thread-summary__state', { hasText: 'Done' }).waitFor();
    await shoot(page, 'channel-command-engine.png', 'playground.png');
  });

  it('answers /ops help only to the person who asked', async () => {
    await say(page, '/ops help');
    const help = page.locator('#messages .msg--ephemeral', { hasText: '/ops status' });
    await help.waitFor();
    expect(await help.textContent()).toContain('Only visible to you');
    expect(await help.locator('code', { hasText: 'disk_usage' }).count()).toBeGreaterThan(0);
    // Bold and code spans are rendered, not shown as Markdown.
    expect(await help.locator('strong', { hasText: 'opsbot' }).count()).toBe(1);

    // Another tab (another person's browser) never sees it.
    const other = await browser.newPage();
    await openPlayground(other, playground.url);
    await message(channelMessages(other), '@opsbot disk_usage paths=/').waitFor();
    expect(await other.locator('.msg--ephemeral').count()).toBe(0);
    await other.close();
  });

  it('restores the channel and its thread after a reload', async () => {
    await page.reload();
    await page.locator('#connection[data-state="live"]').waitFor();
    const root = message(channelMessages(page), '@opsbot disk_usage paths=/');
    await root.locator('.thread-summary', { hasText: '1 reply' }).waitFor();
    await root.locator('.thread-summary').click();
    await message(thread(page), /is [\d.]+% full/)
      .locator('table')
      .waitFor();
    // Ephemeral replies are not kept, as in Slack.
    expect(await page.locator('.msg--ephemeral').count()).toBe(0);
  });

  it('reads well in a narrow window', async () => {
    const narrow = await browser.newPage({ width: 390, height: 800 });
    await openPlayground(narrow, playground.url);
    await message(channelMessages(narrow), '@opsbot disk_usage paths=/').waitFor();
    expect(await narrow.locator('#sidebar').isVisible()).toBe(true);
    const box = await narrow.locator('#sidebar').boundingBox();
    expect(box!.x + box!.width).toBeLessThanOrEqual(0);
    await narrow.click('#menu-button');
    await narrow.locator('.app.sidebar-open').waitFor();
    await narrow.click('#sidebar-close');
    await shoot(narrow, 'channel-narrow.png');
    const overflow = await narrow.evaluate<number>(
      'document.documentElement.scrollWidth - window.innerWidth',
    );
    expect(overflow).toBeLessThanOrEqual(0);
    await narrow.close();
  });
});

async function shoot(target: Page, name: string, docsName?: string): Promise<void> {
  // No hover highlight in the picture.
  await target.mouse.move(0, 0);
  await target.screenshot({ path: join(ARTIFACTS, name) });
  if (docsName && process.env.OPSBOT_UPDATE_SCREENSHOTS === '1') {
    mkdirSync('docs/screenshots', { recursive: true });
    copyFileSync(join(ARTIFACTS, name), join('docs/screenshots', docsName));
  }
}
