// What a Silence click does to the alert group's root on Slack, as `npm start` runs it, through the real
// Alertmanager: once approved and made, the root says who silenced it until when, and offers no Silence buttons; a
// denied one leaves the root as it was. A click while an investigation holds the thread does not wait for it.
import { afterEach, describe, expect, it } from 'vitest';
import { openStore } from '../../agent/store/open-store.js';
import type { Store } from '../../agent/store/store.js';
import { storeKeys } from '../../agent/store/store-keys.js';
import { type FakeOpenAIServer, text as modelText, startFakeOpenAIServer } from '../fakes/openai-server.js';
import { FAKE_BOT, type FakeMessage } from '../fakes/slack/fake-slack-state.js';
import { renderSlackMessage } from '../fakes/slack/render-slack-message.js';
import { eventCallback, viewSubmission } from '../fakes/slack/slack-payload-builders.js';
import { FORM_CONTENT_TYPE, formBody, postSigned } from '../fakes/slack/slack-signing.js';
import { SLACK_SIGNING_SECRET, waitFor } from './alerts-serve-rig.js';
import { alertmanagerInstalled } from './real-alertmanager.js';
import {
  ADMIN,
  CHANNEL,
  OPERATOR,
  type SlackAlertGroup,
  startSlackAlertGroup,
} from './slack-alert-group-rig.js';

let rig: SlackAlertGroup | undefined;
let model: FakeOpenAIServer | undefined;
let reader: Store | undefined;
/** Lets a model held back by a test answer, so the bot can stop. */
let letModelAnswer: (() => void) | undefined;
afterEach(async () => {
  letModelAnswer?.();
  await reader?.close();
  await rig?.stop();
  await model?.close();
  rig = model = reader = letModelAnswer = undefined;
});

const shown = (message: FakeMessage) => renderSlackMessage(message).text;
const buttons = (message: FakeMessage) => renderSlackMessage(message).buttons;

/** The bot on Slack with the real Alertmanager, one firing group posted, and helpers to click on it. */
async function start(options: { model?: FakeOpenAIServer } = {}) {
  rig = await startSlackAlertGroup(options.model ? { modelUrl: options.model.baseURL } : {});
  reader = await openStore(rig.directory.storeUrl);
  const { api, root, current, thread, click, eventsUrl } = rig;
  const store = reader;
  return {
    api,
    root,
    current,
    thread,
    /** Olive's Silence click: its run's id, from the reply. */
    async silence(label: string, triggerId: string): Promise<string> {
      await click(OPERATOR, current(), label, triggerId);
      const reply = await rig!.reply(triggerId);
      const runId = /run (run_[A-Za-z0-9_-]+)/.exec(reply)?.[1];
      if (!runId) throw new Error(`no run in the reply: ${reply}`);
      return runId;
    },
    card: (runId: string) =>
      waitFor('the approval card in the thread', () =>
        thread().find((message) => buttons(message).includes('Approve') && shown(message).includes(runId)),
      ),
    approve: (card: FakeMessage) => click(ADMIN, card, 'Approve', `approve-${card.ts}`),
    /** Ada's Deny: the dialog opens, and she sends it without a reason. */
    async deny(card: FakeMessage) {
      const opened = api.views.length;
      await click(ADMIN, card, 'Deny', `deny-${card.ts}`);
      const view = await waitFor('the deny dialog', () => api.views[opened]);
      const payload = viewSubmission({
        user: ADMIN,
        view,
        values: { reason: { reason: null } },
        triggerId: 'deny',
      });
      const sent = await postSigned(eventsUrl, formBody({ payload: JSON.stringify(payload) }), {
        secret: SLACK_SIGNING_SECRET,
        contentType: FORM_CONTENT_TYPE,
      });
      expect(sent.status).toBe(200);
    },
    /** Olive's mention in the group's thread. */
    async mention(text: string) {
      const ts = api.nextTs();
      const event = { type: 'app_mention', user: OPERATOR, text: `<@${FAKE_BOT.userId}> ${text}` };
      const body = eventCallback(
        { ...event, ts, channel: CHANNEL, thread_ts: root.ts },
        `Ev${ts}`,
        Date.now(),
      );
      const sent = await postSigned(eventsUrl, JSON.stringify(body), { secret: SLACK_SIGNING_SECRET });
      expect(sent.status).toBe(200);
    },
    /** Resolves once the run's end was handled: its link to the group is gone from the store. */
    handled: (runId: string) =>
      waitFor(`the end of ${runId} handled`, async () =>
        (await store.get(storeKeys.alertSilenceRun(runId))) === undefined ? true : undefined,
      ),
    /** The run holding the group's thread. */
    holder: () =>
      store.holder(storeKeys.threadLock({ platform: 'slack', channelId: CHANNEL, threadId: root.ts })),
    status: async (runId: string) =>
      ((await store.get(storeKeys.run(runId))) as { status?: string } | undefined)?.status,
  };
}

describe.skipIf(!alertmanagerInstalled)("a Silence click and the alert group's root on Slack", () => {
  it('shows who silenced it until when once approved, with no Silence buttons; Ack stays', async () => {
    const group = await start();
    expect(buttons(group.current())).toEqual(['Ack', 'Silence 1h', 'Silence 4h']);
    const runId = await group.silence('Silence 1h', 'olive-1h');
    const card = await group.card(runId);
    // Waiting for its approval, the root is as it was.
    expect(shown(group.current())).not.toContain('Silenced');
    const clickedAt = Date.now();
    await group.approve(card);
    const silenced = await waitFor('the root silenced', () =>
      shown(group.current()).includes('🔕 Silenced by Olive until') ? group.current() : undefined,
    );
    expect(buttons(silenced)).toEqual(['Ack']);
    const made = (await (await fetch(`${rig!.manager.url}/api/v2/silences`)).json()) as {
      id: string;
      endsAt: string;
    }[];
    expect(made).toHaveLength(1);
    const line = /Silenced by Olive until (\d{4}-\d\d-\d\d \d\d:\d\d) UTC \(1h\) · silence (\S+)/.exec(
      shown(silenced),
    );
    expect(line?.[2]).toBe(made[0]!.id);
    expect(line?.[1]).toBe(made[0]!.endsAt.slice(0, 16).replace('T', ' '));
    expect(Date.parse(made[0]!.endsAt) - clickedAt).toBeGreaterThan(3_500_000);
    await group.handled(runId);
  }, 60_000);

  it('leaves the root as it was, Silence buttons and all, when the silence is denied', async () => {
    const group = await start();
    const before = shown(group.current());
    const runId = await group.silence('Silence 4h', 'olive-4h');
    await group.deny(await group.card(runId));
    await waitFor('the run denied', async () =>
      (await group.status(runId)) === 'finished' ? true : undefined,
    );
    await group.handled(runId);
    expect(shown(group.current())).toBe(before);
    expect(buttons(group.current())).toEqual(['Ack', 'Silence 1h', 'Silence 4h']);
    expect(await (await fetch(`${rig!.manager.url}/api/v2/silences`)).json()).toEqual([]);
  }, 60_000);

  it('reaches its card and silences while the investigation holds the thread, which a follow-up still waits for', async () => {
    model = await startFakeOpenAIServer();
    const answered = new Promise<void>((resolve) => {
      letModelAnswer = resolve;
    });
    // The investigation (and later the follow-up) waits on the model until the test lets it answer.
    model.respond(async () => {
      await answered;
      return modelText('db1 is out of disk.');
    });
    const fake = model;
    const group = await start({ model });
    const investigation = await waitFor('the investigation asking the model', () =>
      fake.requestCount > 0 ? /Investigating: run (run_\S+)/.exec(shown(group.current()))?.[1] : undefined,
    );
    const runId = await group.silence('Silence 1h', 'olive-busy');
    await group.approve(await group.card(runId));
    const silenced = await waitFor('the root silenced', () =>
      shown(group.current()).includes('🔕 Silenced by Olive') ? group.current() : undefined,
    );
    expect(buttons(silenced)).toEqual(['Ack', 'Run again']);
    expect(await group.status(runId)).toBe('finished');
    expect(await group.holder()).toBe(investigation);
    expect(await group.status(investigation)).not.toBe('finished');
    expect(group.thread().some((message) => /queued \(position/.test(shown(message)))).toBe(false);

    await group.mention('is db2 fine too?');
    await waitFor('the follow-up queued behind the investigation', () =>
      group.thread().find((message) => shown(message).includes('queued (position 1)')),
    );
    letModelAnswer?.();
    await waitFor('both answers in the thread', () =>
      group.thread().filter((message) => shown(message).includes('db1 is out of disk.')).length >= 2
        ? true
        : undefined,
    );
  }, 60_000);
});
