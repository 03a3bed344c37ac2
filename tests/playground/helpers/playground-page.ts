// What a person does on the playground page, as steps the browser tests read like.
import type { Locator, Page } from 'playwright-core';

export async function openPlayground(page: Page, url: string): Promise<void> {
  await page.goto(`${url}/`);
  await page.locator('#connection[data-state="live"]').waitFor();
  await page.locator('.intro').waitFor();
}

export async function youAre(page: Page, userId: string): Promise<void> {
  await page.selectOption('#you-are', userId);
}

/** Types into the channel's composer and sends with Enter. */
export async function say(page: Page, text: string): Promise<void> {
  await page.fill('#composer-input', text);
  await page.press('#composer-input', 'Enter');
}

export async function replyInThread(page: Page, text: string): Promise<void> {
  await page.fill('#thread-input', text);
  await page.press('#thread-input', 'Enter');
}

export function thread(page: Page): Locator {
  return page.locator('#thread');
}

export function channelMessages(page: Page): Locator {
  return page.locator('#messages');
}

/** A message (article) in `scope` whose text contains `text`. */
export function message(scope: Locator, text: string | RegExp): Locator {
  return scope.locator('article.msg').filter({ hasText: text });
}
