// Result facts on the page: labels for people, units on values, and colour by what each field means.
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { ARTIFACTS } from './helpers/browser.js';
import { useBrowserPlayground } from './helpers/browser-playground.js';
import { message, say, thread, youAre } from './helpers/playground-page.js';

let page: Page;

useBrowserPlayground({}, (it) => {
  page = it.page;
});

/** Each fact of a result in the thread, as label → [text, colour class]. */
async function facts(page: Page, resultText: RegExp): Promise<Record<string, [string, string]>> {
  const result = message(thread(page), resultText);
  await result.locator('.field').first().waitFor();
  const pairs = await result.locator('.field').evaluateAll((fields) =>
    fields.map((field) => {
      const value = field.querySelector('dd > span');
      const tone = [...(value?.classList ?? [])].find((name) => name.startsWith('tone-text--')) ?? '';
      return [
        field.querySelector('dt')?.textContent ?? '',
        [field.querySelector('dd')?.textContent ?? '', tone],
      ];
    }),
  );
  return Object.fromEntries(pairs);
}

describe('result facts in the browser', () => {
  it("shows system_stats' load and memory, with labels written for people", async () => {
    await youAre(page, 'alice');
    await say(page, '@opsbot system_stats');
    const shown = await facts(page, /Load [\d.]+\//);
    expect(Object.keys(shown)).toEqual(
      expect.arrayContaining(['Load (1, 5, 15 min)', 'CPUs', 'Memory', 'Up for']),
    );
    expect(shown.Memory![0]).toMatch(/^[\d.]+% used \([\d.]+ \w+ of [\d.]+ \w+\)$/);
    for (const raw of ['Cpus', 'Uptime seconds', 'Uptime']) expect(shown).not.toHaveProperty(raw);
    await message(thread(page), /Load [\d.]+\//).screenshot({
      path: join(ARTIFACTS, 'facts-system-stats.png'),
    });
  });

  it('colours "Timed out: no" and "Exit code: 0" as good news, not as a red false', async () => {
    await say(page, '@opsbot restart_service service=api');
    const card = thread(page).locator('.card--approval');
    await youAre(page, 'bob');
    await card.locator('button', { hasText: /^Approve$/ }).click();
    const shown = await facts(page, /exited with code 0/);
    expect(shown['Timed out']).toEqual(['no', 'tone-text--good']);
    expect(shown['Exit code']).toEqual(['0', 'tone-text--good']);
    expect(shown).not.toHaveProperty('Duration ms');
    expect(shown.Duration![0]).toMatch(/^\d+ ms$/);
    // Nothing in the result is red.
    const result = message(thread(page), /exited with code 0/);
    expect(await result.locator('.tone-text--bad').count()).toBe(0);
    await result.screenshot({ path: join(ARTIFACTS, 'facts-command.png') });
  });
});
