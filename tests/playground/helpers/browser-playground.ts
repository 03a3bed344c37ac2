// What most browser test files share: a playground (with the fake model when asked), Chromium, and one page open
// on it as a given person; a script error on the page fails the test that caused it; all closed at the end.
import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import { type FakeOpenAIServer, startFakeOpenAIServer } from '../../fakes/openai-server.js';
import { launchBrowser, type TestBrowser } from './browser.js';
import { openPlayground, youAre } from './playground-page.js';
import { startTestPlayground, type TestPlayground } from './test-playground.js';

export interface BrowserPlayground {
  playground: TestPlayground;
  browser: TestBrowser;
  page: Page;
  /** Set when the file asked for a model. */
  fake?: FakeOpenAIServer;
}

/**
 * Registers the file's hooks. `opened` gets everything once it is up, so the file keeps its own variables:
 * `useBrowserPlayground({}, (it) => ({ playground, browser, page } = it))`.
 */
export function useBrowserPlayground(
  options: { model?: boolean; as?: string; moreCommands?: string },
  opened: (it: BrowserPlayground) => void,
): void {
  let it: Partial<BrowserPlayground> = {};
  beforeAll(async () => {
    const fake = options.model ? await startFakeOpenAIServer() : undefined;
    it.fake = fake;
    it.playground = await startTestPlayground({
      ...(fake ? { model: fake } : {}),
      ...(options.moreCommands ? { moreCommands: options.moreCommands } : {}),
    });
    it.browser = await launchBrowser();
    it.page = await it.browser.newPage();
    await openPlayground(it.page, it.playground.url);
    if (options.as) await youAre(it.page, options.as);
    opened(it as BrowserPlayground);
  }, 60_000);

  afterEach(() => {
    expect(it.browser?.pageErrors.splice(0)).toEqual([]);
  });

  afterAll(async () => {
    await it.browser?.close();
    await it.playground?.stop();
    await it.fake?.close();
    it = {};
  });
}
