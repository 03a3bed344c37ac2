// The thread's messages from a group's record: distinguishing labels per alert, the heading, the link, buttons.
import { describe, expect, it } from 'vitest';
import { alertLines, changeMessage, rootMessage } from '../../bot/alerts/alert-group-messages.js';
import type { AlertGroupRecord, ShownAlert } from '../../bot/alerts/alert-group-state.js';
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
    });
    expect(alertGroupHeading(root)).toBe('🔴 FIRING · alertname=DiskFull · 2 alerts');
    expect(root.link).toBe('http://prometheus:9090/graph?g0.expr=up');
    const resolved = rootMessage(
      record([alert('db1')], { status: 'resolved', resolvedAt: OPENED + 14 * 60_000 }),
      { investigateButton: true, silenceButtons: true },
    );
    expect(alertGroupHeading(resolved)).toBe('🟢 RESOLVED · alertname=DiskFull · after 14 min');
    expect(resolved.buttons).toBe(false);
  });

  it('render outside text as plain, inert text, with Ack and Investigate while firing', () => {
    const view = alertGroupView(
      rootMessage(record([alert('db1')]), { investigateButton: true, silenceButtons: false }),
      VIEW_LIMITS.slack,
    );
    expect(view.blocks.every((block) => block.type !== 'text' || block.format === 'plain')).toBe(true);
    expect(JSON.stringify(view.blocks)).not.toMatch(/@here/);
    expect(view.buttons.map((button) => button.label)).toEqual(['Ack', 'Investigate']);
  });

  it('offer Silence 1h and 4h with an Alertmanager, and not for a group with no labels to match', () => {
    const labels = (message: ReturnType<typeof rootMessage>) =>
      alertGroupView(message, VIEW_LIMITS.slack).buttons.map((button) => button.label);
    const offers = { investigateButton: false, silenceButtons: true };
    expect(labels(rootMessage(record([alert('db1')]), offers))).toEqual(['Ack', 'Silence 1h', 'Silence 4h']);
    expect(labels(rootMessage({ ...record([alert('db1')]), groupLabels: {} }, offers))).toEqual(['Ack']);
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
