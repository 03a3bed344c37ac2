// Vitest global setup for the browser project: one headless Chromium for every browser test file, which each
// open a fresh context of their own on it (tests/playground/helpers/browser.ts), instead of one Chromium per file.
import { existsSync } from 'node:fs';
import { type BrowserServer, chromium } from 'playwright-core';
import { CHROMIUM, CHROMIUM_ARGS } from './playground/helpers/chromium.js';

let server: BrowserServer | undefined;

export async function setup(): Promise<void> {
  // Without Chromium each file fails with the install hint (browser.ts): a silent skip would hide it.
  if (!existsSync(CHROMIUM)) return;
  server = await chromium.launchServer({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
  // Test workers are started after this and inherit the environment.
  process.env.OPSBOT_TEST_BROWSER_WS = server.wsEndpoint();
}

export async function teardown(): Promise<void> {
  await server?.close();
}
