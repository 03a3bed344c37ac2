// Approval cards in Slack: refused self-approval, one execution per approval, double clicks, denial and expiry.

import { afterEach, describe, expect, it } from 'vitest';
import { CARD_BUTTONS } from '../approvals/card-buttons.js';
import { text, toolCalls } from '../fakes/openai-server.js';
import type { FakeMessage } from '../fakes/slack/fake-slack-api.js';
import { renderSlackMessage } from '../fakes/slack/render-slack-message.js';
import { CHANNEL, SlackHarness, type SlackMode, settings, USERS } from './slack-harness.js';

describe.each<SlackMode>(['http', 'socket'])('Slack approval cards over %s', (mode) => {
  let h: SlackHarness;
  afterEach(async () => h?.close());

  /** Alice asks for a restart; the model asks for restart_service, which waits for an approver. */
  async function requestRestart(): Promise<{ threadTs: string; card: FakeMessage }> {
    h = await SlackHarness.start({ mode });
    h.openai.reply(
      toolCalls([{ name: 'restart_service', arguments: { service: 'api' } }], {
        content: 'the api is stuck',
      }),
      text('Restarted the api.'),
    );
    const mention = await h.mention(USERS.alice, 'restart the api');
    await h.settled();
    const [card] = h.withButton(mention.ts, 'Approve');
    if (!card) throw new Error(`no approval card in the thread:\n${h.threadText(mention.ts)}`);
    return { threadTs: mention.ts, card };
  }

  it('posts a card with the requester, tool, arguments, reason, approvers and expiry, and id-only buttons', async () => {
    const { card } = await requestRestart();
    const shown = renderSlackMessage(card);
    for (const part of [
      'Alice',
      'restart_service',
      '"service": "api"',
      'the api is stuck',
      'admin',
      '2026-01-01 12:15 UTC',
    ])
      expect(shown.text).toContain(part);
    expect(shown.buttons).toEqual(CARD_BUTTONS);
    const values = JSON.stringify(card.blocks).match(/"value":"[^"]*"/g);
    expect(values).toEqual([
      expect.stringMatching(/^"value":"approve:apv_[\w-]+"$/),
      expect.stringMatching(/^"value":"grant:apv_[\w-]+:15m"$/),
      expect.stringMatching(/^"value":"grant:apv_[\w-]+:1h"$/),
      expect.stringMatching(/^"value":"grant:apv_[\w-]+:4h"$/),
      expect.stringMatching(/^"value":"deny:apv_[\w-]+"$/),
      expect.stringMatching(/^"value":"cancel:run_[\w-]+"$/),
    ]);
    expect(JSON.stringify(card.blocks)).toContain('"style":"primary"');
    expect(JSON.stringify(card.blocks)).toContain('"style":"danger"');
    expect(h.probe.count('restart_service')).toBe(0);
  });

  it('names an approving user group by its display name, as "other than" a requester in it', async () => {
    const identities = {
      ...settings.permissions.identities,
      'slack_group:SADMINS': { roles: ['admin'], display_name: '@admins' },
      'slack:UDAVE': { roles: ['admin'], display_name: 'Dave' },
    };
    h = await SlackHarness.start({
      mode,
      settings: { ...settings, permissions: { ...settings.permissions, identities } },
    });
    h.openai.reply(toolCalls([{ name: 'restart_service', arguments: { service: 'api' } }]));
    const alice = await h.mention(USERS.alice, 'restart the api');
    await h.settled();
    const [forAlice] = h.withButton(alice.ts, 'Approve');
    expect(renderSlackMessage(forAlice!).text).toMatch(
      /\*Approvers\*\nsomeone with the admin role \(@admins, Dave\)/,
    );
    // Bob is in SADMINS: the card does not offer him his own call, but the group's others may approve it.
    h.openai.reply(toolCalls([{ name: 'restart_service', arguments: { service: 'worker' } }]));
    const bob = await h.mention(USERS.bob, 'restart the worker');
    await h.settled();
    const [forBob] = h.withButton(bob.ts, 'Approve');
    expect(renderSlackMessage(forBob!).text).toMatch(
      /\*Approvers\*\nsomeone with the admin role \(@admins other than Bob Builder, Dave\)/,
    );
  });

  it("refuses the requester's own click with a message only they see", async () => {
    const { card } = await requestRestart();
    const click = await h.click(USERS.alice, card, 'Approve');
    expect(click.status).toBe(200);
    await h.settled();
    expect(h.probe.count('restart_service')).toBe(0);
    expect(h.responsesText().join('\n')).toMatch(/someone else has to approve/i);
    expect(h.api.responses.at(-1)!.body).toMatchObject({
      response_type: 'ephemeral',
      replace_original: false,
    });
    expect(renderSlackMessage(h.api.message(CHANNEL, card.ts)!).buttons).toEqual(CARD_BUTTONS);
  });

  it("runs the tool once on an approver's click and updates the card in place without buttons", async () => {
    const { threadTs, card } = await requestRestart();
    await h.click(USERS.bob, card, 'Approve');
    await h.settled();
    expect(h.probe.count('restart_service')).toBe(1);
    const decided = renderSlackMessage(h.api.message(CHANNEL, card.ts)!);
    expect(decided.buttons).toEqual([]);
    expect(decided.text).toMatch(/Approved/);
    expect(decided.text).toContain('Bob Builder');
    expect(h.api.callsTo('chat.update').some((call) => call.args.ts === card.ts)).toBe(true);
    expect(h.threadText(threadTs)).toContain('Restarted the api.');
  });

  it('runs the tool once when two approvers click at the same time', async () => {
    const { card } = await requestRestart();
    await Promise.all([h.click(USERS.bob, card, 'Approve'), h.click(USERS.dave, card, 'Approve')]);
    await h.settled();
    expect(h.probe.count('restart_service')).toBe(1);
    expect(h.responsesText().join('\n')).toMatch(/already approved/i);
  });

  it('runs the tool once when one approver double-clicks', async () => {
    const { card } = await requestRestart();
    await Promise.all([h.click(USERS.bob, card, 'Approve'), h.click(USERS.bob, card, 'Approve')]);
    await h.settled();
    expect(h.probe.count('restart_service')).toBe(1);
    expect(renderSlackMessage(h.api.message(CHANNEL, card.ts)!).buttons).toEqual([]);
  });

  /** Bob clicks Deny: a modal asks why (optional), and the card stays open until he submits it. */
  async function denyDialog(card: FakeMessage) {
    const click = await h.click(USERS.bob, card, 'Deny');
    expect(click.status).toBe(200);
    await h.settled();
    const view = h.api.views.at(-1);
    if (!view) throw new Error('Deny opened no dialog');
    expect(renderSlackMessage(h.api.message(CHANNEL, card.ts)!).buttons).toEqual(CARD_BUTTONS);
    return view;
  }

  it('asks why on Deny, and denies with the reason on the card and to the model; the tool never runs', async () => {
    const { card } = await requestRestart();
    h.openai.reply(text('Understood, not restarting.'));
    const view = await denyDialog(card);
    expect(view.view).toMatchObject({ type: 'modal', title: { text: 'Deny this action' } });
    const submit = await h.submitView(USERS.bob, view, { reason: { reason: '  not during the sale  ' } });
    expect(submit.status).toBe(200);
    expect(submit.ms).toBeLessThan(3000);
    await h.settled();
    expect(h.probe.count('restart_service')).toBe(0);
    const decided = renderSlackMessage(h.api.message(CHANNEL, card.ts)!);
    expect(decided.buttons).toEqual([]);
    expect(decided.text).toMatch(/\*Denied\* by Bob Builder at [\d-]+ [\d:]+ UTC: not during the sale\n/);
    expect(h.openai.requests.at(-1)!.rawBody).toContain('not during the sale');
  });

  it('denies without a reason when the dialog is sent empty', async () => {
    const { card } = await requestRestart();
    h.openai.reply(text('Understood, not restarting.'));
    const view = await denyDialog(card);
    await h.submitView(USERS.bob, view, { reason: { reason: null } });
    await h.settled();
    expect(h.probe.count('restart_service')).toBe(0);
    const decided = renderSlackMessage(h.api.message(CHANNEL, card.ts)!);
    expect(decided.buttons).toEqual([]);
    expect(decided.text).toMatch(/\*Denied\* by Bob Builder at [\d-]+ [\d:]+ UTC\n/);
  });

  it('refuses a denial from someone who may not decide, privately, and leaves the card open', async () => {
    const { card } = await requestRestart();
    const click = await h.click(USERS.carol, card, 'Deny');
    expect(click.status).toBe(200);
    await h.settled();
    const view = h.api.views.at(-1)!;
    await h.submitView(USERS.carol, view, { reason: { reason: 'nope' } });
    await h.settled();
    expect(renderSlackMessage(h.api.message(CHANNEL, card.ts)!).buttons).toEqual(CARD_BUTTONS);
    expect(h.api.ephemerals.at(-1)).toMatchObject({ user: USERS.carol });
    expect(h.api.ephemerals.at(-1)!.text).toMatch(/^Sorry, only someone with the admin role/);
  });

  it('denies at once when the dialog cannot be opened (the click came too late for it)', async () => {
    const { card } = await requestRestart();
    h.openai.reply(text('Understood, not restarting.'));
    // The harness numbers triggers in order: the next click's trigger has expired by the time we open it.
    h.api.expiredTriggers.add(`trigger-${h.nextTrigger}`);
    await h.click(USERS.bob, card, 'Deny');
    await h.settled();
    expect(h.api.views).toEqual([]);
    expect(h.probe.count('restart_service')).toBe(0);
    const decided = renderSlackMessage(h.api.message(CHANNEL, card.ts)!);
    expect(decided.buttons).toEqual([]);
    expect(decided.text).toMatch(/Denied/);
  });

  it('shows an expired card and runs nothing when the click comes after the expiry', async () => {
    const { threadTs, card } = await requestRestart();
    h.clock.advance(15 * 60_000 + 1_000);
    await h.click(USERS.bob, card, 'Approve');
    await h.settled();
    expect(h.probe.count('restart_service')).toBe(0);
    const decided = renderSlackMessage(h.api.message(CHANNEL, card.ts)!);
    expect(decided.buttons).toEqual([]);
    expect(decided.text).toMatch(/Expired/);
    expect(h.threadText(threadTs)).toMatch(/expired before anyone decided/);
  });
});
