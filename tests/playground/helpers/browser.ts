// Debian's Chromium, headless, driven by playwright-core: a fresh context per test file on the Chromium the browser
// project shares (tests/browser-global-setup.ts), or on one of the file's own; a clear failure without it.
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import {
  type Browser,
  type BrowserContext,
  type BrowserContextOptions,
  chromium,
  type Page,
} from 'playwright-core';
import { CHROMIUM, CHROMIUM_ARGS } from './chromium.js';

export { CHROMIUM } from './chromium.js';
export const ARTIFACTS = join(process.cwd(), 'test-artifacts');

export interface TestBrowser {
  context: BrowserContext;
  /** Uncaught errors and console errors from every page, so a broken script fails the test that caused it. */
  pageErrors: string[];
  newPage(options?: { width?: number; height?: number }): Promise<Page>;
  close(): Promise<void>;
}

/** What every test page sees: the same size, scale, motion, locale and time zone, whatever the machine. */
const CONTEXT_OPTIONS: BrowserContextOptions = {
  viewport: { width: 1440, height: 900 },
  deviceScaleFactor: 1,
  reducedMotion: 'reduce',
  locale: 'en-GB',
  timezoneId: 'UTC',
};

/** Fails (never skips) without Chromium: CI installs it, and a silent skip would hide that it did not. */
export async function launchBrowser(): Promise<TestBrowser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `The browser tests need Debian's Chromium at ${CHROMIUM}, and it is not installed. ` +
        'Install it with: apt-get install -y chromium',
    );
  }
  const shared = process.env.OPSBOT_TEST_BROWSER_WS;
  const browser: Browser = shared
    ? await chromium.connect(shared)
    : await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
  const context = await browser.newContext(CONTEXT_OPTIONS);
  // A missing element fails in seconds with the locator named, rather than at the test's own timeout.
  context.setDefaultTimeout(10_000);
  mkdirSync(ARTIFACTS, { recursive: true });
  const pageErrors: string[] = [];
  return {
    context,
    pageErrors,
    async newPage(options = {}) {
      const page = await context.newPage();
      page.on('pageerror', (error) => pageErrors.push(error.message));
      page.on('console', (message) => {
        if (message.type() === 'error') pageErrors.push(message.text());
      });
      if (options.width) await page.setViewportSize({ width: options.width, height: options.height ?? 860 });
      return page;
    },
    async close() {
      await context.close();
      // Disconnects from a shared Chromium, and stops a file's own.
      await browser.close();
    },
  };
}
