// A thread on the page: reply counts count answers, not the bot's status line, and a message queued behind a run
// leaves each run's messages in order, under the message that started them.
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { type FakeOpenAIServer, text } from '../fakes/openai-server.js';
import { useBrowserPlayground } from './helpers/browser-playground.js';
import { channelMessages, message, replyInThread, say, thread } from './helpers/playground-page.js';

let fake: FakeOpenAIServer;
let page: Page;

useBrowserPlayground({ model: true, as: 'alice' }, (it) => {
  page = it.page;
  fake = it.fake!;
});

/** The thread panel's replies, top to bottom, each as its text. */
async function threadTexts(): Promise<string[]> {
  return thread(page).locator('#thread-messages article.msg').allInnerTexts();
}

describe('reply counts', () => {
  it('counts one answer as one reply, whatever the status line did', async () => {
    fake.reply(text('The api answers in 40 ms.'));
    await say(page, '@opsbot is the api up?');
    await message(thread(page), 'answers in 40 ms').waitFor();
    await thread(page).locator('.status--success').waitFor();
    const root = message(channelMessages(page), 'is the api up?');
    await root.locator('.thread-summary__state', { hasText: 'Done' }).waitFor();
    expect(await root.locator('.thread-summary__count').textContent()).toBe('1 reply');
    expect(await thread(page).locator('.divider').first().textContent()).toBe('1 reply');
  });
});

describe('a message queued behind a run', () => {
  it("keeps each run's status and answer under the question that started it", async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let calls = 0;
    fake.respond(async () => {
      calls += 1;
      if (calls === 1) {
        await held;
        return text('First answer: the api is fine.');
      }
      return text('Second answer: the worker is fine.');
    });
    await say(page, '@opsbot check the api');
    await thread(page).locator('.status--working').waitFor();
    await replyInThread(page, 'and the worker?');
    await message(thread(page), 'and the worker?').waitFor();
    // The second run waits its turn; then the first answers.
    await new Promise((resolve) => setTimeout(resolve, 300));
    release();
    await message(thread(page), 'Second answer').waitFor();
    await expect.poll(async () => thread(page).locator('.status--success').count()).toBe(2);

    const texts = await threadTexts();
    const at = (part: string) => texts.findIndex((entry) => entry.includes(part));
    const statuses = texts.flatMap((entry, index) => (entry.includes('Done') ? [index] : []));
    expect(at('check the api')).toBe(0); // the root, above the divider
    expect(at('First answer')).toBeLessThan(at('and the worker?'));
    expect(at('and the worker?')).toBeLessThan(at('Second answer'));
    // The first run's status line stays with the first run.
    expect(statuses[0]).toBeLessThan(at('and the worker?'));
    expect(statuses[1]).toBeGreaterThan(at('and the worker?'));

    const root = message(channelMessages(page), 'check the api');
    // Both answers, the second question and the bot's note that it was queued; no status line.
    expect(at('is queued')).toBeGreaterThan(at('and the worker?'));
    expect(await root.locator('.thread-summary__count').textContent()).toBe('4 replies');
  });
});
