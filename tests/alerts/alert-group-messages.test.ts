// The thread's messages from a group's record: distinguishing labels per alert, the heading, the link, buttons.
import { describe, expect, it } from 'vitest';
import { alertLines, changeMessage, rootMessage } from '../../bot/alerts/alert-group-messages.js';
import {
  type AlertGroupRecord,
  AlertGroupRecordSchema,
  type ShownAlert,
} from '../../bot/alerts/alert-group-state.js';
import { alertGroupHeading, alertGroupView } from '../../bot/chat/alert-group-view.js';
import { VIEW_LIMITS } from '../../bot/chat/view-limits.js';

const OPENED = Date.parse('2026-01-01T12:00:00Z');

function alert(instance: string, extra: Record<string, string> = {}): ShownAlert {
  return {
    fingerprint: instance,
    labels: { alertname: 'DiskFull', severity: 'critical', instance, ...extra },
    annotations: { summary: `Disk on ${instance} is *95%* full @here` },
    startsAt: OPENED,
    generatorURL: 'http://prometheus:9090/graph?g0.expr=up',
  };
}

function record(alerts: ShownAlert[], extra: Partial<AlertGroupRecord> = {}): AlertGroupRecord {
  return {
    version: 1,
    groupId: 'g1',
    groupKey: '{}:{alertname="DiskFull"}',
    receiver: 'opsbot',
    groupLabels: { alertname: 'DiskFull' },
    status: 'firing',
    alerts,
    openedAt: OPENED,
    externalURL: 'http://alertmanager:9093',
    root: { conversation: { platform: 'slack', channelId: 'C1' }, messageId: '1.1' },
    investigation: {},
    revision: 0,
    ...extra,
  };
}

describe("an alert group's messages", () => {
  it('show each alert by the labels that tell it apart', () => {
    const group = record([alert('db1'), alert('db2', { disk: 'sdb' })]);
    expect(alertLines(group.alerts, group).map((line) => line.labels)).toEqual([
      { instance: 'db1' },
      { instance: 'db2', disk: 'sdb' },
    ]);
    // One alert alone has nothing shared to leave out but the group's labels.
    const single = record([alert('db1')]);
    expect(alertLines(single.alerts, single)[0]?.labels).toEqual({ severity: 'critical', instance: 'db1' });
  });

  it('head the root with the state, the group labels and the count, and resolved with how long', () => {
    const root = rootMessage(record([alert('db1'), alert('db2')]), {
      investigateButton: true,
      silenceButtons: false,
      now: OPENED,
    });
    expect(alertGroupHeading(root)).toBe('🔴 FIRING · alertname=DiskFull · 2 alerts');
    expect(root.link).toBe('http://prometheus:9090/graph?g0.expr=up');
    const resolved = rootMessage(
      record([alert('db1')], { status: 'resolved', resolvedAt: OPENED + 14 * 60_000 }),
      { investigateButton: true, silenceButtons: true, now: OPENED },
    );
    expect(alertGroupHeading(resolved)).toBe('🟢 RESOLVED · alertname=DiskFull · after 14 min');
    expect(resolved.buttons).toBe(false);
  });

  it('render outside text as plain, inert text, with Ack and Investigate while firing', () => {
    const view = alertGroupView(
      rootMessage(record([alert('db1')]), { investigateButton: true, silenceButtons: false, now: OPENED }),
      VIEW_LIMITS.slack,
    );
    expect(view.blocks.every((block) => block.type !== 'text' || block.format === 'plain')).toBe(true);
    expect(JSON.stringify(view.blocks)).not.toMatch(/@here/);
    expect(view.buttons.map((button) => button.label)).toEqual(['Ack', 'Investigate']);
  });

  it('offer Silence 1h and 4h with an Alertmanager, and not for a group with no labels to match', () => {
    const labels = (message: ReturnType<typeof rootMessage>) =>
      alertGroupView(message, VIEW_LIMITS.slack).buttons.map((button) => button.label);
    const offers = { investigateButton: false, silenceButtons: true, now: OPENED };
    expect(labels(rootMessage(record([alert('db1')]), offers))).toEqual(['Ack', 'Silence 1h', 'Silence 4h']);
    expect(labels(rootMessage({ ...record([alert('db1')]), groupLabels: {} }, offers))).toEqual(['Ack']);
  });

  it('show who silenced the group and until when, without Silence buttons, while the silence lasts', () => {
    const until = OPENED + 3_600_000;
    const silenced = record([alert('db1')], {
      silenced: { by: 'Alice', until, duration: '1h', silenceId: 'a1b2c3' },
    });
    const offers = { investigateButton: true, silenceButtons: true };
    const during = alertGroupView(rootMessage(silenced, { ...offers, now: until - 1 }), VIEW_LIMITS.slack);
    expect(JSON.stringify(during.blocks)).toContain(
      '🔕 Silenced by Alice until 2026-01-01 13:00 UTC (1h) · silence a1b2c3',
    );
    expect(during.buttons.map((button) => button.label)).toEqual(['Ack', 'Investigate']);
    // Once it ended, the root offers Silence again and no longer claims the group is silenced.
    const after = alertGroupView(rootMessage(silenced, { ...offers, now: until }), VIEW_LIMITS.slack);
    expect(JSON.stringify(after.blocks)).not.toContain('Silenced');
    expect(after.buttons.map((button) => button.label)).toEqual([
      'Ack',
      'Investigate',
      'Silence 1h',
      'Silence 4h',
    ]);
    // Without an id from the tool, the line leaves it out; the text of outside names is made inert.
    const plain = rootMessage(
      record([alert('db1')], { silenced: { by: '@here Bob', until, duration: '4h' } }),
      { ...offers, now: OPENED },
    );
    const text = JSON.stringify(alertGroupView(plain, VIEW_LIMITS.slack).blocks);
    expect(text).toContain('until 2026-01-01 13:00 UTC (4h)"');
    expect(text).not.toContain('@here');
  });

  it('read a record stored before silences were kept', () => {
    const old = JSON.parse(JSON.stringify(record([alert('db1')])));
    expect(AlertGroupRecordSchema.parse(old).silenced).toBeUndefined();
  });

  it('reply with what joined and what resolved', () => {
    const group = record([alert('db1'), alert('db3')]);
    const reply = changeMessage(group, {
      kind: 'changed',
      added: [alert('db3')],
      resolved: [alert('db2')],
      firingCount: group.alerts.length,
    });
    const text = JSON.stringify(alertGroupView(reply, VIEW_LIMITS.slack).blocks);
    expect(text).toContain('Joined (1)');
    expect(text).toContain('Resolved (1)');
    expect(text).toContain('2 firing now.');
  });
});
