// A patrol end to end on Slack, as `npm start` runs it: the real Bolt app against the fake Slack, a real local HTTP
// target that fails and recovers, runs started with `/ops patrol run`, and the report's buttons clicked.
import { afterEach, describe, expect, it } from 'vitest';
import { type FakeSlackApi, startFakeSlackApi } from '../fakes/slack/fake-slack-api.js';
import { renderSlackMessage } from '../fakes/slack/render-slack-message.js';
import {
  clickButton,
  PATROL,
  patrolAudit,
  patrolSettings,
  type ScriptedTarget,
  type ServedBot,
  SLACK_SIGNING_SECRET,
  SlackCommands,
  serveWithSettings,
  startScriptedTarget,
  waitFor,
} from './patrol-serve-rig.js';

const CHANNEL = 'C0PATROL';
const ALICE = 'UALICE';
const CAROL = 'UCAROL';

let slack: FakeSlackApi | undefined;
let target: ScriptedTarget | undefined;
let bot: ServedBot | undefined;
afterEach(async () => {
  await bot?.stop();
  await slack?.close();
  await target?.close();
  bot = slack = target = undefined;
});

async function start(statuses: number[]) {
  target = await startScriptedTarget(statuses);
  slack = await startFakeSlackApi();
  slack.addUser({ id: ALICE, name: 'alice', displayName: 'Alice' });
  slack.addUser({ id: CAROL, name: 'carol', displayName: 'Carol' });
  slack.channels.set(CHANNEL, 'ops');
  bot = await serveWithSettings(
    patrolSettings({ channel: `slack:${CHANNEL}`, url: target.url, identities: [`slack:${ALICE}`] }),
    { SLACK_BOT_TOKEN: 'xoxb-patrol-test', SLACK_SIGNING_SECRET, SLACK_API_URL: slack.apiUrl },
  );
  const eventsUrl = `${bot.serving.url}/slack/events`;
  return { api: slack, eventsUrl, commands: new SlackCommands(slack, eventsUrl, CHANNEL) };
}

/** Runs the patrol once and waits until it has ended (the next `patrol run` starts only then). */
async function runOnce(commands: SlackCommands, hitsBefore: number): Promise<void> {
  await commands.runPatrol(ALICE);
  await waitFor('the check to reach the target', () => (target!.hits() > hitsBefore ? true : undefined));
}

describe('a patrol on Slack, end to end', () => {
  it('posts one report when the target fails and one resolution when it recovers, nothing otherwise', async () => {
    const { api, commands } = await start([200, 503, 200, 200]);
    await runOnce(commands, 0); // 200: nothing to say
    await runOnce(commands, 1); // 503: the report
    const report = await waitFor('the report', () => api.topLevel(CHANNEL)[0]);
    await runOnce(commands, 2); // 200: resolved
    await waitFor('the resolution', () => (api.thread(CHANNEL, report.ts).length > 1 ? true : undefined));
    await runOnce(commands, 3); // 200: nothing changed
    // A fourth run can start only once the third has ended, so everything the third posted is in by now.
    await commands.runPatrol(ALICE);
    await waitFor('the last run', () => (target!.hits() > 4 ? true : undefined));
    await commands.runPatrol(ALICE);

    const posts = api.callsTo('chat.postMessage');
    expect(posts).toHaveLength(2);
    expect(api.topLevel(CHANNEL)).toHaveLength(1);
    const first = renderSlackMessage(report.history[0] ?? report);
    expect(first.text).toContain(`CRITICAL · ${PATROL}`);
    expect(first.text).toMatch(/`?api`? \(http_check\) failing, critical: .*503/);
    expect(first.buttons).toEqual(['Ack', 'Snooze 1h', 'Snooze 4h', 'Snooze 1d', 'Run again']);
    expect(blockTypes(report.history[0] ?? report)).toContain('header');

    const replies = api.thread(CHANNEL, report.ts).filter((message) => message.ts !== report.ts);
    expect(replies).toHaveLength(1);
    const reply = renderSlackMessage(replies[0]!);
    expect(reply.text).toContain(`RESOLVED · ${PATROL}`);
    expect(reply.buttons).toEqual([]);

    expect(api.callsTo('chat.update')).toHaveLength(1);
    const resolved = renderSlackMessage(api.message(CHANNEL, report.ts)!);
    expect(resolved.text).toContain(`RESOLVED · ${PATROL}`);
    expect(resolved.text).toMatch(/Resolved at .*, open for \d+ min/);
    expect(resolved.buttons).toEqual([]);
    // The card's body says what the header says: the check resolved, no longer "failing, critical".
    expect(resolved.text).toMatch(/`?api`? \(http_check\) resolved/);
    expect(resolved.text).not.toContain('failing, critical');
  });

  it('acks, refuses a viewer, snoozes and runs again from the report buttons, all audited', async () => {
    const { api, eventsUrl, commands } = await start([503]);
    await runOnce(commands, 0);
    const report = await waitFor('the report', () => api.topLevel(CHANNEL)[0]);
    let clicks = 0;
    const click = async (user: string, label: string): Promise<string> => {
      const message = api.message(CHANNEL, report.ts)!;
      const triggerId = `click-${++clicks}`;
      await clickButton(api, eventsUrl, user, message, label, triggerId);
      return waitFor(`the answer to ${label}`, () => {
        const answer = api.responses.find((response) => response.id === triggerId);
        return answer ? String(answer.body.text ?? '') : undefined;
      });
    };

    const refused = await click(CAROL, 'Ack');
    expect(refused).toContain('Your role (viewer) may not ack patrol reports');
    expect(api.callsTo('chat.update')).toHaveLength(0);

    const acked = await click(ALICE, 'Ack');
    expect(acked).toContain('Acked');
    const afterAck = renderSlackMessage(api.message(CHANNEL, report.ts)!);
    expect(afterAck.text).toContain('Acked by Alice');
    expect(afterAck.buttons).not.toContain('Ack');

    const snoozed = await click(ALICE, 'Snooze 1h');
    expect(snoozed).toContain('Snoozed');
    expect(renderSlackMessage(api.message(CHANNEL, report.ts)!).text).toContain('Snoozed until');

    const hits = target!.hits();
    const ran = await click(CAROL, 'Run again');
    expect(ran).toContain(`Running patrol ${PATROL} now`);
    await waitFor('the run again', () => (target!.hits() > hits ? true : undefined));
    await commands.runPatrol(ALICE); // starts once the run again has ended

    await bot!.serving.stop();
    const audit = await patrolAudit(bot!.storeUrl);
    expect(audit).toEqual(
      expect.arrayContaining([
        { actor: `slack:${CAROL}`, outcome: 'ack refused' },
        { actor: `slack:${ALICE}`, outcome: 'ack done' },
        { actor: `slack:${ALICE}`, outcome: 'snooze done' },
        { actor: `slack:${CAROL}`, outcome: 'run done' },
      ]),
    );
  });
});

function blockTypes(message: { blocks: unknown[] }): string[] {
  return (message.blocks as { type: string }[]).map((block) => block.type);
}
