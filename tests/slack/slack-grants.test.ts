// Grants from Slack's buttons: "Approve for 1h" approves the call and covers the same call again, with no card;
// a pattern button covers the values it names; other arguments, people and channels still get a card.
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { AuditLog } from '../../agent/policy/audit-log.js';
import { defineTool } from '../../agent/tool.js';
import { text, toolCalls } from '../fakes/openai-server.js';
import { renderSlackMessage } from '../fakes/slack/render-slack-message.js';
import type { ToolProbe } from '../kernel/harness.js';
import { CHANNEL, SlackHarness, USERS } from './slack-harness.js';

const restartApp = (probe: ToolProbe) =>
  defineTool({
    name: 'restart_app',
    description: 'Restart one of the app services. Use when one is stuck. Do not use to deploy.',
    input: z.object({ service: z.enum(['api', 'worker', 'db']).describe('Which service to restart') }),
    risk: 'danger',
    grantPatterns: { 'app-services': { service: ['api', 'worker'] } },
    execute: (_ctx, input) =>
      probe.track('restart_app', input, async () => ({ ok: true, summary: `restarted ${input.service}` })),
  });

describe('Slack approval grants', () => {
  let h: SlackHarness;
  afterEach(async () => h?.close());

  /**
   * Someone asks for a restart; returns the thread and the approval card, if one was posted. A run expected to
   * wait for its card gets no final answer queued, so the next run's model turns stay in order.
   */
  async function askRestart(tool: string, service: string, user: string = USERS.alice, waits = false) {
    const call = toolCalls([{ name: tool, arguments: { service } }], { content: `${service} is stuck` });
    if (waits) h.openai.reply(call);
    else h.openai.reply(call, text(`Restarted ${service}.`));
    const mention = await h.mention(user, `restart ${service}`);
    await h.settled();
    return { threadTs: mention.ts, card: h.withButton(mention.ts, 'Approve')[0] };
  }

  it('approves for 1h by button: the card names the grant, the same call then runs with no card, and each use is audited', async () => {
    h = await SlackHarness.start({ mode: 'http' });
    const first = await askRestart('restart_service', 'api');
    if (!first.card) throw new Error(`no approval card:\n${h.threadText(first.threadTs)}`);

    await h.click(USERS.dave, first.card, 'Approve for 1h');
    await h.settled();
    expect(h.probe.count('restart_service')).toBe(1);
    const decided = renderSlackMessage(h.api.message(CHANNEL, first.card.ts)!);
    expect(decided.buttons).toEqual([]);
    expect(decided.text).toMatch(/Approved\* by Dave/);
    expect(decided.text).toMatch(/for 1h, until 13:00 UTC \(grt_[0-9a-f]{16}\)/);
    // Dave is told the grant's id, to end it by.
    expect(h.responsesText().at(-1)).toMatch(/Granted until 13:00 UTC \(grt_[0-9a-f]{16}\)/);

    h.clock.advance(10 * 60_000);
    const second = await askRestart('restart_service', 'api');
    expect(second.card).toBeUndefined();
    expect(h.probe.count('restart_service')).toBe(2);
    expect(h.threadText(second.threadTs)).toContain(
      "restart_service: run under Dave's grant (until 13:00 UTC), without a new approval.",
    );

    // Other arguments, and another requester, get a card of their own.
    const other = await askRestart('restart_service', 'worker', USERS.alice, true);
    expect(other.card).toBeDefined();
    const dave = await askRestart('restart_service', 'api', USERS.dave, true);
    expect(h.thread(dave.threadTs).some((message) => message.text.includes('Approval needed'))).toBe(true);
    expect(h.probe.count('restart_service')).toBe(2);

    const audit = await new AuditLog(h.kernel.store, { clock: h.clock }).list();
    const kinds = audit.map((entry) => entry.kind);
    expect(kinds.filter((kind) => kind === 'grant_created')).toHaveLength(1);
    expect(kinds.filter((kind) => kind === 'grant_used')).toHaveLength(1);
    expect(audit.find((entry) => entry.kind === 'grant_created')?.actor.displayName).toBe('Dave');

    // At its end, the same call gets a card again.
    h.clock.advance(51 * 60_000);
    const later = await askRestart('restart_service', 'api', USERS.alice, true);
    expect(later.card).toBeDefined();
    expect(h.probe.count('restart_service')).toBe(2);
  });

  it('grants a pattern by button: any service it names runs with no card, one it does not gets a card', async () => {
    h = await SlackHarness.start({ mode: 'http', tools: (probe) => [restartApp(probe)] });
    const first = await askRestart('restart_app', 'api');
    if (!first.card) throw new Error(`no approval card:\n${h.threadText(first.threadTs)}`);
    const card = renderSlackMessage(first.card);
    expect(card.buttons).toEqual([
      'Approve',
      'Approve for 15m',
      'Approve for 1h',
      'Approve for 4h',
      'Deny',
      'For 15m: any service in api, worker',
      'For 1h: any service in api, worker',
      'For 4h: any service in api, worker',
      'Cancel run',
    ]);
    // The pattern's buttons sit in a row of their own, and Cancel run on one below.
    expect(
      (first.card.blocks as { type: string }[]).filter((block) => block.type === 'actions'),
    ).toHaveLength(3);

    await h.click(USERS.dave, first.card, 'For 1h: any service in api, worker');
    await h.settled();
    expect(h.probe.count('restart_app')).toBe(1);
    expect(renderSlackMessage(h.api.message(CHANNEL, first.card.ts)!).text).toContain(
      'these arguments, but any service in api, worker',
    );

    const worker = await askRestart('restart_app', 'worker');
    expect(worker.card).toBeUndefined();
    expect(h.probe.count('restart_app')).toBe(2);
    const db = await askRestart('restart_app', 'db', USERS.alice, true);
    expect(db.card).toBeDefined();
    expect(h.probe.count('restart_app')).toBe(2);
  });

  it('offers no pattern a call falls outside of, and refuses a forged pattern button without approving', async () => {
    h = await SlackHarness.start({ mode: 'http', tools: (probe) => [restartApp(probe)] });
    const db = await askRestart('restart_app', 'db');
    if (!db.card) throw new Error(`no approval card:\n${h.threadText(db.threadTs)}`);
    expect(renderSlackMessage(db.card).buttons).toEqual([
      'Approve',
      'Approve for 15m',
      'Approve for 1h',
      'Approve for 4h',
      'Deny',
      'Cancel run',
    ]);
    // A button Slack never showed, built by hand: the run holds what its card offered, so nothing is approved.
    const forged = structuredClone(db.card);
    const actions = (forged.blocks as { type: string }[]).find((block) => block.type === 'actions') as
      | { elements: { value: string; text: { text: string } }[] }
      | undefined;
    const button = actions?.elements[2];
    if (!button) throw new Error('no grant button to forge');
    button.value = `${button.value}:app-services`;
    button.text.text = 'Forged';
    await h.click(USERS.dave, forged, 'Forged');
    await h.settled();
    expect(h.responsesText().at(-1)).toContain('restart_app offers no pattern "app-services" for this call');
    expect(h.probe.count('restart_app')).toBe(0);
    expect(renderSlackMessage(h.api.message(CHANNEL, db.card.ts)!).buttons).toHaveLength(6);
  });
});
