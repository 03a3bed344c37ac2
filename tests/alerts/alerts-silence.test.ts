// An alert group's Silence buttons on Slack, as `npm start` runs it, through the real Alertmanager: the click is a
// write call of alertmanager_silence made as the clicker, so the policy gate and approvals decide it. An operator's
// click waits on an approval card showing the matchers, an admin approves, and the silence exists in Alertmanager;
// a viewer's click is refused and told why.
import { afterEach, describe, expect, it } from 'vitest';
import type { FakeMessage } from '../fakes/slack/fake-slack-state.js';
import { renderSlackMessage } from '../fakes/slack/render-slack-message.js';
import { auditedAlertActions, waitFor } from './alerts-serve-rig.js';
import { alertmanagerInstalled } from './real-alertmanager.js';
import {
  ADMIN,
  OPERATOR,
  type SlackAlertGroup,
  startSlackAlertGroup,
  VIEWER,
} from './slack-alert-group-rig.js';

let group: SlackAlertGroup | undefined;
afterEach(async () => {
  await group?.stop();
  group = undefined;
});

const shown = (message: FakeMessage) => renderSlackMessage(message).text;

interface Silence {
  matchers: { name: string; value: string; isRegex: boolean; isEqual: boolean }[];
  comment: string;
  createdBy: string;
  status: { state: string };
}

describe.skipIf(!alertmanagerInstalled)("an alert group's Silence buttons on Slack", () => {
  it('silence through the approval gate for an operator, and refuse a viewer with the reason', async () => {
    group = await startSlackAlertGroup();
    const { current, thread, reply, manager } = group;
    const click = group.click;
    expect(renderSlackMessage(current()).buttons).toEqual(['Ack', 'Silence 1h', 'Silence 4h']);

    await click(VIEWER, current(), 'Silence 4h', 'vic-silence');
    const refused = await reply('vic-silence');
    expect(refused).toContain('Not silenced');
    expect(refused).toContain('viewer');

    await click(OPERATOR, current(), 'Silence 1h', 'olive-silence');
    expect(await reply('olive-silence')).toContain('Silencing for 1h in the thread');
    const card = await waitFor('the approval card in the thread', () =>
      thread().find((message) => renderSlackMessage(message).buttons.includes('Approve')),
    );
    expect(shown(card)).toContain('alertname="DiskFull"');
    expect(shown(card)).toContain('for 1h');
    // Nothing is silenced before the approval.
    expect(await silences(manager.url)).toEqual([]);

    await click(ADMIN, card, 'Approve', 'ada-approve');
    const made = await waitFor('the silence in Alertmanager', async () => {
      const active = (await silences(manager!.url)).filter((silence) => silence.status.state === 'active');
      return active.length > 0 ? active : undefined;
    });
    expect(made).toHaveLength(1);
    expect(made[0]!.matchers).toEqual([
      { name: 'alertname', value: 'DiskFull', isRegex: false, isEqual: true },
    ]);
    expect(made[0]!.comment).toContain('Olive');
    expect(made[0]!.comment).toContain('alertname=DiskFull');
    expect(made[0]!.createdBy).toBe('opsbot for Olive');
    await waitFor('the result in the thread', () =>
      thread().find((message) => shown(message).includes('Silenced alertname="DiskFull"')),
    );

    await group.stopBot();
    expect(await auditedAlertActions(group.directory.storeUrl)).toEqual([
      [`slack:${VIEWER}`, 'silence refused'],
      [`slack:${OPERATOR}`, 'silence done'],
    ]);
  }, 60_000);
});

async function silences(alertmanager: string): Promise<Silence[]> {
  return (await fetch(`${alertmanager}/api/v2/silences`)).json() as Promise<Silence[]>;
}
