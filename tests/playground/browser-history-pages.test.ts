// A long channel loads its latest page, and "Load earlier" pages back to the first message, in Chromium.
import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, type TestBrowser } from './helpers/browser.js';
import { channelMessages, openPlayground } from './helpers/playground-page.js';
import { startTestPlayground, type TestPlayground } from './helpers/test-playground.js';

// biome-ignore lint/suspicious/noExplicitAny: response bodies are JSON whose shape each expect checks.
type Json = any;

const MESSAGES = 130;
let playground: TestPlayground;
let browser: TestBrowser;
let page: Page;

beforeAll(async () => {
  playground = await startTestPlayground();
  for (let index = 1; index <= MESSAGES; index++) {
    const response = await fetch(`${playground.url}/api/channels/ops/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ user: 'carol', clientId: 'history-filler', text: `note ${index}` }),
    });
    expect(response.status).toBe(202);
  }
  browser = await launchBrowser();
  page = await browser.newPage();
}, 60_000);

afterEach(() => {
  expect(browser.pageErrors.splice(0)).toEqual([]);
});

afterAll(async () => {
  await browser?.close();
  await playground?.stop();
});

const texts = async (path: string): Promise<{ texts: string[]; earlier: number | null }> => {
  const body = (await (await fetch(`${playground.url}${path}`)).json()) as Json;
  return { texts: body.messages.map((message: Json) => message.content.text), earlier: body.earlier };
};

describe('history pages', () => {
  it('pages back through the API with the earlier cursor, to the first message', async () => {
    const latest = await texts('/api/channels/ops/messages');
    expect(latest.texts).toHaveLength(100);
    expect(latest.texts.at(-1)).toBe(`note ${MESSAGES}`);
    expect(latest.earlier).toBe(30);
    const before = await texts(`/api/channels/ops/messages?before=${latest.earlier}`);
    expect(before.texts).toEqual(Array.from({ length: 30 }, (_, index) => `note ${index + 1}`));
    expect(before.earlier).toBeNull();
    const small = await texts('/api/channels/ops/messages?before=30&limit=10');
    expect(small).toEqual({ texts: before.texts.slice(20), earlier: 20 });
    expect((await fetch(`${playground.url}/api/channels/ops/messages?limit=501`)).status).toBe(400);
  });

  it('shows the latest page, and "Load earlier messages" loads the rest', async () => {
    await openPlayground(page, playground.url);
    const list = channelMessages(page).locator('article.msg');
    await expect.poll(() => list.count()).toBe(100);
    const button = page.locator('#load-earlier');
    await expect(button.isVisible()).resolves.toBe(true);
    await button.click();
    await expect.poll(() => list.count()).toBe(MESSAGES);
    await expect(list.first().textContent()).resolves.toContain('note 1');
    await expect(button.isHidden()).resolves.toBe(true);
  });
});
