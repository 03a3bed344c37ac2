// The playground's model dot in Chromium shows the model as it is: configured but unreachable is red, not green.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeOpenAIServer, startFakeOpenAIServer } from '../fakes/openai-server.js';
import { launchBrowser, type TestBrowser } from './helpers/browser.js';
import { openPlayground } from './helpers/playground-page.js';
import { startTestPlayground, type TestPlayground } from './helpers/test-playground.js';

let fake: FakeOpenAIServer;
let playground: TestPlayground;
let browser: TestBrowser;
let page: Page;

beforeAll(async () => {
  // A model server that was there and is gone: the settings name it, but nothing answers.
  fake = await startFakeOpenAIServer();
  await fake.close();
  playground = await startTestPlayground({ model: fake });
  browser = await launchBrowser();
  page = await browser.newPage();
  await openPlayground(page, playground.url);
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await playground?.stop();
});

describe('the model dot in the browser', () => {
  it('is red and says the model is unreachable, with the reason on hover', async () => {
    const engine = page.locator('#engine');
    await expect(engine.getAttribute('data-kind')).resolves.toBe('model-down');
    await expect(page.locator('#engine-text').textContent()).resolves.toBe('Model: fake-model (unreachable)');
    await expect(engine.getAttribute('title')).resolves.toMatch(/is unreachable \(ECONNREFUSED\)/);
    expect(browser.pageErrors).toEqual([]);
  });
});
