// Patrols when opsbot runs as a gateway and two workers on Redis: each scheduled slot runs once across the
// workers, whichever takes it, and one report is posted; the gateway answers the report's buttons and `/ops patrol`
// commands, and a manual run it starts has its checks made by a worker.
import { afterEach, describe, expect, it } from 'vitest';
import { renderSlackMessage } from '../fakes/slack/render-slack-message.js';
import {
  clickButton,
  type ScriptedTarget,
  SLACK_SIGNING_SECRET,
  SlackCommands,
  startScriptedTarget,
  waitFor,
} from '../patrols/patrol-serve-rig.js';
import { CHANNEL, type ScaleRig, startScaleRig } from './scale-rig.js';

const ALICE = 'UALICE';
const SLOT_MS = 2_000;

function settings(often: ScriptedTarget, byHand: ScriptedTarget): string {
  const patrol = (name: string, schedule: string, url: string) => [
    `  ${name}:`,
    `    schedule: '${schedule}'`,
    `    channel: 'slack:${CHANNEL}'`,
    '    checks:',
    `      - { id: api, tool: http_check, args: { url: '${url}', expected_status: '200' } }`,
  ];
  return [
    'permissions:',
    '  default_role: viewer',
    '  tasks_per_minute: 100000',
    '  roles:',
    '    operator: { tools: ["*"], risks: [read], patrols: [run, ack, snooze, pause] }',
    '  identities:',
    `    'slack:${ALICE}': { roles: [operator], display_name: Alice }`,
    'patrols:',
    // Every 2 seconds, on both workers' clocks.
    ...patrol('often', '*/2 * * * * *', often.url),
    // Never on its own during a test (midnight on 1 January): only when someone asks.
    ...patrol('byhand', '0 0 1 1 *', byHand.url),
    '',
  ].join('\n');
}

let rig: ScaleRig | undefined;
const targets: ScriptedTarget[] = [];
afterEach(async () => {
  await rig?.close();
  rig = undefined;
  await Promise.all(targets.splice(0).map((target) => target.close()));
});

describe('patrols across a gateway and two workers', () => {
  it('runs each slot once, posts one report, and is steered and run by hand through the gateway', async () => {
    const often = await startScriptedTarget([503]);
    const byHand = await startScriptedTarget([503]);
    targets.push(often, byHand);
    rig = await startScaleRig(settings(often, byHand));
    const env = { SLACK_SIGNING_SECRET };
    const gateway = await rig.start('gateway', 'gateway', env);
    await rig.start('worker-1', 'worker', env);
    await rig.start('worker-2', 'worker', env);
    const eventsUrl = `${rig.gatewayUrl}/slack/events`;
    const { slack } = rig;
    const commands = new SlackCommands(slack, eventsUrl, CHANNEL);

    // Five slots of the frequent patrol, with both workers' clocks firing at each.
    await waitFor('five runs of the frequent patrol', () => (often.hits() >= 5 ? true : undefined), 30_000);
    const times = often.hitTimes();
    const slots = new Set(times.map((at) => Math.floor(at / SLOT_MS)));
    // A slot taken by both workers would show as two checks in one 2 s slot.
    expect(times.length).toBe(slots.size);
    const reports = () => slack.topLevel(CHANNEL).filter((m) => renderSlackMessage(m).text.includes('often'));
    await waitFor('the report of the frequent patrol', () => (reports().length > 0 ? true : undefined));
    // Still failing on every later run: still one report, never one per worker or per run.
    expect(reports()).toHaveLength(1);

    // The gateway answers `/ops patrol …` itself.
    const list = await commands.send(ALICE, 'patrol list');
    expect(list).toContain('often');
    expect(list).toContain('byhand');
    expect(list).not.toContain('not running');

    // A manual run asked of the gateway: its check is made by a worker, and the report posted.
    const runReply = await commands.send(ALICE, 'patrol run byhand');
    expect(runReply).toContain('Running patrol byhand now');
    const byHandReport = await waitFor('the report of the manual run', () =>
      slack.topLevel(CHANNEL).find((m) => renderSlackMessage(m).text.includes('byhand')),
    );
    expect(byHand.hits()).toBe(1);
    expect(renderSlackMessage(byHandReport).buttons).toEqual([
      'Ack',
      'Snooze 1h',
      'Snooze 4h',
      'Snooze 1d',
      'Run again',
    ]);
    // The gateway stepped no run: patrol runs are traced only by the workers.
    expect(gateway.tracedRuns()).toEqual([]);

    // Ack on the report, clicked through the gateway, changes the report in place.
    await clickButton(slack, eventsUrl, ALICE, byHandReport, 'Ack', 'ack-1');
    const acked = await waitFor('the answer to Ack', () => {
      const answer = slack.responses.find((response) => response.id === 'ack-1');
      return answer ? String(answer.body.text ?? '') : undefined;
    });
    expect(acked).toContain('Acked');
    expect(renderSlackMessage(slack.message(CHANNEL, byHandReport.ts)!).text).toContain('Acked by Alice');

    // Run again from the report, through the gateway: the check runs a second time.
    await clickButton(
      slack,
      eventsUrl,
      ALICE,
      slack.message(CHANNEL, byHandReport.ts)!,
      'Run again',
      'run-2',
    );
    const again = await waitFor('the answer to Run again', () => {
      const answer = slack.responses.find((response) => response.id === 'run-2');
      return answer ? String(answer.body.text ?? '') : undefined;
    });
    expect(again).toContain('Running patrol byhand now');
    await waitFor('the second manual check', () => (byHand.hits() === 2 ? true : undefined));

    // Pausing through the gateway stops the workers' clocks from running it.
    expect(await commands.send(ALICE, 'patrol pause often')).toContain('Paused patrol often');
    const pausedAt = often.hits();
    const pausedAtMs = Date.now();
    await waitFor('three slots to pass', () => (Date.now() > pausedAtMs + 3 * SLOT_MS ? true : undefined));
    // At most the one run already under way when the pause landed.
    expect(often.hits() - pausedAt).toBeLessThanOrEqual(1);
  }, 90_000);
});
