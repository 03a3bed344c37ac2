// Debian's Chromium, headless, driven by playwright-core: a fresh profile per test file, and a clear failure without it.
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BrowserContext, chromium, type Page } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';
export const ARTIFACTS = join(process.cwd(), 'test-artifacts');

export interface TestBrowser {
  context: BrowserContext;
  /** Uncaught errors and console errors from every page, so a broken script fails the test that caused it. */
  pageErrors: string[];
  newPage(options?: { width?: number; height?: number }): Promise<Page>;
  close(): Promise<void>;
}

/** Fails (never skips) without Chromium: CI installs it, and a silent skip would hide that it did not. */
export async function launchBrowser(): Promise<TestBrowser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `The browser tests need Debian's Chromium at ${CHROMIUM}, and it is not installed. ` +
        'Install it with: apt-get install -y chromium',
    );
  }
  const profile = mkdtempSync(join(tmpdir(), 'opsbot-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
      '--disable-quic',
    ],
    viewport: { width: 1440, height: 900 },
    deviceScaleFactor: 1,
    reducedMotion: 'reduce',
    locale: 'en-GB',
    timezoneId: 'UTC',
  });
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
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
