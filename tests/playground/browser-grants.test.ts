// Approval grants on the page: "Approve for 1h" approves the call and lets the same call run again with no card;
// a grant pattern's buttons sit in a row of their own, and one of them lets another service's call run too.
import { join } from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { ARTIFACTS } from './helpers/browser.js';
import { useBrowserPlayground } from './helpers/browser-playground.js';
import { message, say, thread, youAre } from './helpers/playground-page.js';

let page: Page;

/** Beside restart_service (no patterns), a restart_app whose approver may cover both app services at once. */
const RESTART_APP = [
  '    restart_app:',
  '      description: Restart one of the app services. In these tests it only prints what it would restart.',
  '      argv: [echo, restarted app, "{service}"]',
  '      risk: danger',
  '      parameters:',
  '        service: { description: The service to restart., enum: [api, worker, db] }',
  '      grant_patterns:',
  '        app-services: { service: [api, worker] }',
  '',
].join('\n');

useBrowserPlayground({ moreCommands: RESTART_APP }, (it) => {
  page = it.page;
});

const GRANT_BUTTONS = ['Approve', 'Approve for 15m', 'Approve for 1h', 'Approve for 4h', 'Deny'];

/** Alice asks for the call; the thread pane opens on its new thread (callers find what they wait for by its text). */
async function ask(tool: string, service: string): Promise<Locator> {
  await youAre(page, 'alice');
  await say(page, `@opsbot ${tool} service=${service}`);
  return thread(page);
}

/** The approval card for the call, once its Approve button shows. */
async function waitingCard(panel: Locator, service: string): Promise<Locator> {
  const card = panel.locator('.card--approval', { hasText: `"service": "${service}"` });
  await card.locator('button', { hasText: /^Approve$/ }).waitFor();
  return card;
}

/**
 * The call ran under Bob's grant in the thread pane: the grant line shows (only a call run under a grant gets it,
 * so the pane shows the new thread), the tool's result follows, and the thread has no approval card at all.
 */
async function ranUnderGrant(panel: Locator, tool: string, output: RegExp, until: string): Promise<void> {
  await message(
    panel,
    `${tool}: run under Bob's grant (until ${until} UTC), without a new approval.`,
  ).waitFor();
  await message(panel, output).waitFor();
  await panel.locator('.status--success').last().waitFor();
  expect(await panel.locator('.card--approval').count()).toBe(0);
}

/** A card with its rows of grant buttons is taller than the thread pane at 900 px: a taller window shows it whole. */
async function shoot(element: Locator, name: string): Promise<void> {
  const tab = element.page();
  const size = tab.viewportSize();
  await tab.setViewportSize({ width: size?.width ?? 1440, height: 1400 });
  await tab.mouse.move(0, 0);
  await element.screenshot({ path: join(ARTIFACTS, name) });
  if (size) await tab.setViewportSize(size);
}

describe('approval grants in the browser', () => {
  it('approves for 1h by button: the same call then runs with no card, another service still gets one', async () => {
    const card = await waitingCard(await ask('restart_service', 'api'), 'api');
    // No pattern for restart_service: one row, once and for each of permissions.grant_durations, then Deny;
    // Cancel run on a row of its own.
    expect(await card.locator('.card__actions').count()).toBe(2);
    expect(await card.locator('.card__actions').nth(0).locator('button').allInnerTexts()).toEqual(
      GRANT_BUTTONS,
    );
    expect(await card.locator('.card__actions').nth(1).locator('button').allInnerTexts()).toEqual([
      'Cancel run',
    ]);
    await shoot(card, 'approval-card-grants.png');

    await youAre(page, 'bob');
    await card.locator('button', { hasText: /^Approve for 1h$/ }).click();
    const outcome = card.locator('.card__outcome', { hasText: /Approved by Bob at \d\d:\d\d/ });
    await outcome.waitFor();
    const outcomeText = (await outcome.textContent()) ?? '';
    const granted =
      /for 1h, until (\d\d:\d\d) UTC \(grt_[0-9a-f]{16}\): later calls of restart_service by Alice here with these arguments run without a new card/.exec(
        outcomeText,
      );
    expect(granted, outcomeText).not.toBeNull();
    expect(await card.locator('button').count()).toBe(0);
    await message(thread(page), 'echo restarted api exited with code 0').waitFor();
    await thread(page).locator('.status--success').last().waitFor();
    await shoot(card, 'approval-card-granted.png');

    await ranUnderGrant(
      await ask('restart_service', 'api'),
      'restart_service',
      /echo restarted api exited with code 0/,
      granted![1]!,
    );

    // The grant covers these arguments only: the worker waits for an approver.
    const worker = await waitingCard(await ask('restart_service', 'worker'), 'worker');
    expect(await worker.locator('.card__actions').nth(0).locator('button').allInnerTexts()).toEqual(
      GRANT_BUTTONS,
    );
  });

  it("shows a pattern's buttons in a second row, and its grant lets the other service's call run with no card", async () => {
    const card = await waitingCard(await ask('restart_app', 'api'), 'api');
    const rows = card.locator('.card__actions');
    expect(await rows.count()).toBe(3);
    expect(await rows.nth(0).locator('button').allInnerTexts()).toEqual(GRANT_BUTTONS);
    expect(await rows.nth(1).locator('button').allInnerTexts()).toEqual([
      'For 15m: any service in api, worker',
      'For 1h: any service in api, worker',
      'For 4h: any service in api, worker',
    ]);
    await shoot(card, 'approval-card-grant-patterns.png');

    await youAre(page, 'bob');
    await rows
      .nth(1)
      .locator('button', { hasText: /^For 1h: any service in api, worker$/ })
      .click();
    const outcome = card.locator('.card__outcome', { hasText: /Approved by Bob at \d\d:\d\d/ });
    await outcome.waitFor();
    const outcomeText = (await outcome.textContent()) ?? '';
    const granted =
      /for 1h, until (\d\d:\d\d) UTC \(grt_[0-9a-f]{16}\): later calls of restart_app by Alice here with these arguments, but any service in api, worker run without a new card/.exec(
        outcomeText,
      );
    expect(granted, outcomeText).not.toBeNull();
    await message(thread(page), /restarted app"? api exited with code 0/).waitFor();

    await ranUnderGrant(
      await ask('restart_app', 'worker'),
      'restart_app',
      /restarted app"? worker exited with code 0/,
      granted![1]!,
    );

    // db is not in the pattern: it waits for an approver, with no pattern offered.
    const db = await waitingCard(await ask('restart_app', 'db'), 'db');
    expect(await db.locator('.card__actions').count()).toBe(2);
  });
});
