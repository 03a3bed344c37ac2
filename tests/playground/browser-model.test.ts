// The playground in Chromium with a model (the fake OpenAI server): answers, questions and approvals from the page.
import { copyFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { type FakeOpenAIServer, text, toolCalls } from '../fakes/openai-server.js';
import { ARTIFACTS } from './helpers/browser.js';
import { useBrowserPlayground } from './helpers/browser-playground.js';
import { channelMessages, message, say, thread, youAre } from './helpers/playground-page.js';

let fake: FakeOpenAIServer;
let page: Page;

useBrowserPlayground({ model: true, as: 'alice' }, (it) => {
  page = it.page;
  fake = it.fake!;
});

/** The last message the model was sent, as the kernel wrote it. */
function lastModelInput(): string {
  return String(fake.lastRequest?.body.messages?.at(-1)?.content ?? '');
}

describe('playground in the browser, with a model', () => {
  it('shows the model in use and no command-engine banner', async () => {
    await expect(page.locator('#engine-text').textContent()).resolves.toBe('Model: fake-model');
    expect(await page.locator('#model-banner').isVisible()).toBe(false);
  });

  it("answers a mention in a thread with the model's Markdown rendered", async () => {
    fake.reply(
      toolCalls([{ name: 'disk_usage', arguments: { paths: ['/'] } }]),
      text(
        'The root file system has **plenty of room**:\n\n| Mount | Use |\n|---|---|\n| `/` | fine |\n\n' +
          'Check again with:\n```\ndf -h /\n```\n<img src=x onerror=alert(1)> @everyone',
      ),
    );
    await say(page, '@opsbot how full is the root disk?');
    const answer = message(thread(page), 'plenty of room');
    await answer.waitFor();
    expect(await answer.locator('strong', { hasText: 'plenty of room' }).count()).toBe(1);
    expect(await answer.locator('table td code', { hasText: '/' }).count()).toBe(1);
    expect(await answer.locator('pre code').textContent()).toBe('df -h /');
    // Model text is shown as text: no element is created from it, and nobody is pinged.
    expect(await answer.locator('img').count()).toBe(0);
    expect(await answer.textContent()).toContain('<img src=x onerror=alert(1)>');
    expect(await answer.locator('[data-ping]').count()).toBe(0);
    // The first request to the model server is the health check (GET /models); the first completion has the task.
    const firstCompletion = fake.requests.find((request) => request.path.endsWith('/chat/completions'));
    expect(firstCompletion!.body.messages!.at(-1)!.content).toContain('how full is the root disk?');
  });

  it('answers an ask_user question from its choice buttons', async () => {
    fake.reply(
      toolCalls([
        { name: 'ask_user', arguments: { question: 'Which service is slow?', choices: ['api', 'worker'] } },
      ]),
      text('Thanks. The **worker** queue is empty, so it is idle rather than stuck.'),
    );
    await say(page, '@opsbot something is slow, can you look?');
    const question = thread(page).locator('.card--question', { hasText: 'Which service is slow?' });
    await question.waitFor();
    expect(await question.locator('button').allInnerTexts()).toEqual(['api', 'worker', 'Cancel run']);
    await question.locator('button', { hasText: 'worker' }).click();
    await message(thread(page), 'idle rather than stuck').waitFor();
    expect(JSON.parse(lastModelInput())).toMatchObject({ answer: 'worker', answered_by: 'Alice' });
    // Once answered, the choices go and the card says who answered.
    await question.locator('.card__outcome', { hasText: 'Answered by Alice: worker' }).waitFor();
    expect(await question.locator('button').count()).toBe(0);
    await shootElement(thread(page), 'thread-question.png');
  });

  it('refuses the requester an approval, and runs the call once another user approves', async () => {
    fake.reply(
      toolCalls([{ name: 'restart_service', arguments: { service: 'api' } }], {
        content: 'The api has answered 502 for ten minutes; a restart should clear its stuck workers.',
      }),
      text('Restarted **api**; it answers again.'),
    );
    await say(page, '@opsbot the api is stuck, restart it');
    const card = thread(page).locator('.card--approval');
    await card.locator('button', { hasText: /^Approve$/ }).waitFor();
    const cardText = await card.textContent();
    for (const part of ['Alice', 'restart_service', '"service": "api"', '502 for ten minutes', 'admin']) {
      expect(cardText).toContain(part);
    }
    expect(await card.locator('.countdown').textContent()).toMatch(/^expires in 1[45]:\d\d$/);
    await shootElement(card, 'approval-card.png', 'approval.png');

    await card.locator('button', { hasText: /^Approve$/ }).click();
    const refusal = thread(page).locator('.msg--ephemeral', { hasText: 'someone else has to approve' });
    await refusal.waitFor();
    expect(await refusal.textContent()).toContain('Only visible to you');
    await expect(card.locator('button', { hasText: /^Approve$/ }).isEnabled()).resolves.toBe(true);
    await shootElement(thread(page), 'thread-approval-refused.png');

    await youAre(page, 'bob');
    await card.locator('button', { hasText: /^Approve$/ }).click();
    await card.locator('.card__outcome', { hasText: /Approved by Bob at \d\d:\d\d/ }).waitFor();
    expect(await card.locator('button').count()).toBe(0);
    const result = message(thread(page), 'it answers again');
    await result.waitFor();
    // The tool really ran: the kernel gave the model echo's output.
    const toolMessage = fake.lastRequest!.body.messages!.find((entry) => entry.role === 'tool');
    expect(String(toolMessage?.content)).toContain('restarted api');
    await thread(page).locator('.status--success').last().waitFor();
    await shootElement(card, 'approval-card-approved.png');
    await page.mouse.move(0, 0);
    await page.screenshot({ path: join(ARTIFACTS, 'channel-with-model.png') });
  });

  it('keeps every thread after a reload', async () => {
    await page.reload();
    await page.locator('#connection[data-state="live"]').waitFor();
    for (const text of ['how full is the root disk?', 'something is slow', 'restart it']) {
      await message(channelMessages(page), text).locator('.thread-summary').waitFor();
    }
    await message(channelMessages(page), 'restart it').locator('.thread-summary').click();
    await thread(page).locator('.card__outcome', { hasText: 'Approved by Bob' }).waitFor();
  });
});

async function shootElement(element: Locator, name: string, docsName?: string): Promise<void> {
  await element.page().mouse.move(0, 0);
  await element.screenshot({ path: join(ARTIFACTS, name) });
  if (docsName && process.env.OPSBOT_UPDATE_SCREENSHOTS === '1') {
    mkdirSync('docs/screenshots', { recursive: true });
    copyFileSync(join(ARTIFACTS, name), join('docs/screenshots', docsName));
  }
}
