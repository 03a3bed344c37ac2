// Attacks on the playground page in Chromium: markup in a user's message, the model's answer and a tool's data
// (a log line) must render as text. No dialog fires and no element, handler or javascript: link is created.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type FakeOpenAIServer, startFakeOpenAIServer, text } from '../fakes/openai-server.js';
import { launchBrowser, type TestBrowser } from '../playground/helpers/browser.js';
import {
  channelMessages,
  message,
  openPlayground,
  say,
  thread,
  youAre,
} from '../playground/helpers/playground-page.js';
import { startTestPlayground, type TestPlayground } from '../playground/helpers/test-playground.js';

const PAYLOADS = [
  '<script>window.__xss="script"; alert(1)</script>',
  '<img src=x onerror="window.__xss=\'img\'; alert(2)">',
  '<svg onload=alert(3)></svg>',
  '<iframe src="javascript:alert(4)"></iframe>',
  '<a href="javascript:alert(5)">html link</a>',
  '[markdown link](javascript:alert(6))',
  '[quote break](https://example.com/"onmouseover="alert(7))',
  '[<img src=x onerror=alert(8)>](https://example.com/)',
  '![image](x" onerror="alert(9))',
  '**<b onmouseover=alert(10)>bold</b>**',
  '`<img src=x onerror=alert(11)>`',
  'https://example.com/<script>alert(12)</script>',
  '<details open ontoggle=alert(13)>',
];

/** What an injection would leave behind in the messages or the thread, whatever it managed to run. */
const INJECTED = [
  'script',
  'iframe',
  'svg[onload]',
  'img[src="x"]',
  '[onerror]',
  '[onload]',
  '[onmouseover]',
  '[ontoggle]',
  'a[href^="javascript:" i]',
  'details[open]',
].map((selector) => `#messages ${selector}, #thread ${selector}`);

let model: FakeOpenAIServer;
let playground: TestPlayground;
let browser: TestBrowser;
let page: Page;
let logDir: string;
const dialogs: string[] = [];

beforeAll(async () => {
  logDir = mkdtempSync(join(tmpdir(), 'opsbot-xss-logs-'));
  writeFileSync(join(logDir, 'app.log'), PAYLOADS.map((payload) => `ERROR ${payload}`).join('\n'));
  model = await startFakeOpenAIServer();
  playground = await startTestPlayground({ model, logRoots: [logDir] });
  browser = await launchBrowser();
  page = await browser.newPage();
  page.on('dialog', async (dialog) => {
    dialogs.push(dialog.message());
    await dialog.dismiss();
  });
  await openPlayground(page, playground.url);
  await youAre(page, 'alice');
}, 60_000);

afterEach(async () => {
  expect(dialogs).toEqual([]);
  expect(await page.evaluate('typeof globalThis.__xss')).toBe('undefined');
  for (const selector of INJECTED) expect(await page.locator(selector).count(), selector).toBe(0);
});

afterAll(async () => {
  await browser?.close();
  await playground?.stop();
  await model?.close();
  rmSync(logDir, { recursive: true, force: true });
});

async function hoverLinks(scope: ReturnType<typeof thread>): Promise<void> {
  for (const link of await scope.locator('a').all()) await link.hover().catch(() => {});
}

describe('markup renders as text in the playground page', () => {
  it("attack: a user's message carrying script, handlers and javascript: links", async () => {
    model.reply(text('Noted.'));
    await say(page, `@opsbot look at this\n${PAYLOADS.join('\n')}`);
    const sent = message(channelMessages(page), 'look at this');
    await sent.waitFor();
    await message(thread(page), 'Noted.').waitFor();
    const shown = (await sent.textContent()) ?? '';
    expect(shown).toContain('<script>window.__xss="script"; alert(1)</script>');
    expect(shown).toContain('<img src=x onerror=');
    await hoverLinks(channelMessages(page));
  });

  it("attack: the model's answer carrying script, handlers, javascript: links and markdown link tricks", async () => {
    model.reply(text(`Here is what I found:\n\n${PAYLOADS.map((payload) => `- ${payload}`).join('\n')}`));
    await say(page, '@opsbot summarise');
    const answer = message(thread(page), 'Here is what I found');
    await answer.waitFor();
    const shown = (await answer.textContent()) ?? '';
    expect(shown).toContain('<svg onload=alert(3)></svg>');
    expect(shown).toContain('[markdown link](javascript:alert(6))');
    // The only links are the http(s) ones, and their href stays one attribute.
    for (const href of await answer
      .locator('a')
      .evaluateAll((links) => links.map((a) => a.getAttribute('href'))))
      expect(href).toMatch(/^https:\/\/example\.com\//);
    await hoverLinks(thread(page));
  });

  it('attack: HTML in the lines of a tool result, shown as a table (log_search through the command engine)', async () => {
    // Without a model the command engine answers, and a result's data is drawn as tables by tables.js.
    const commands = await startTestPlayground({ logRoots: [logDir] });
    try {
      await openPlayground(page, commands.url);
      await youAre(page, 'alice');
      await say(page, '@opsbot log_search glob=app.log pattern=ERROR');
      const result = message(thread(page), /Found 13 lines/);
      await result.locator('table').first().waitFor();
      const cells = await result.locator('td').allTextContents();
      expect(cells).toContain('ERROR <iframe src="javascript:alert(4)"></iframe>');
      expect(cells).toContain('ERROR <script>window.__xss="script"; alert(1)</script>');
      await hoverLinks(thread(page));
      for (const selector of INJECTED) expect(await page.locator(selector).count(), selector).toBe(0);
    } finally {
      await commands.stop();
    }
  });
});
