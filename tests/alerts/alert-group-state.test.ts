// An alert group's transitions: only a change of the firing set is a change.
import { describe, expect, it } from 'vitest';
import { type AlertGroupRecord, groupChange, recordAfter } from '../../bot/alerts/alert-group-state.js';
import { type WebhookPayload, WebhookPayloadSchema } from '../../bot/alerts/alertmanager-payload.js';
import { webhookAlert, webhookPayload } from './webhook-fixtures.js';

const NOW = Date.parse('2026-01-01T12:14:00Z');
const channel = { platform: 'slack' as const, channelId: 'C1' };
const payload = (alerts: ReturnType<typeof webhookAlert>[]): WebhookPayload =>
  WebhookPayloadSchema.parse(webhookPayload(alerts));

function opened(alerts: ReturnType<typeof webhookAlert>[]): AlertGroupRecord {
  const notification = payload(alerts);
  const change = groupChange(undefined, notification, NOW);
  if (change.kind !== 'opened') throw new Error(`expected opened, got ${change.kind}`);
  return recordAfter(undefined, change, { groupId: 'g1', payload: notification, channel });
}

describe('an alert group', () => {
  it('opens on the first notification with firing alerts, from its earliest start', () => {
    const record = opened([webhookAlert('db2', { startsAt: '2026-01-01T12:05:00Z' }), webhookAlert('db1')]);
    expect(record.status).toBe('firing');
    expect(record.alerts.map((alert) => alert.labels.instance)).toEqual(['db1', 'db2']);
    expect(record.openedAt).toBe(Date.parse('2026-01-01T12:00:00Z'));
  });

  it('does not open on a notification with nothing firing', () => {
    expect(groupChange(undefined, payload([webhookAlert('db1', { status: 'resolved' })]), NOW)).toEqual({
      kind: 'none',
      reason: 'nothing_open',
    });
  });

  it('posts nothing for the same firing set, in any order and with resolved alerts around it', () => {
    const record = opened([webhookAlert('db1'), webhookAlert('db2')]);
    const again = payload([webhookAlert('db2'), webhookAlert('db1'), webhookAlert('db1')]);
    expect(groupChange(record, again, NOW)).toEqual({ kind: 'none', reason: 'same_firing_set' });
  });

  it('is changed when an alert joins or some resolve, naming which', () => {
    const record = opened([webhookAlert('db1'), webhookAlert('db2')]);
    const change = groupChange(
      record,
      payload([webhookAlert('db1'), webhookAlert('db2', { status: 'resolved' }), webhookAlert('db3')]),
      NOW,
    );
    expect(change.kind).toBe('changed');
    if (change.kind !== 'changed') return;
    const notification = payload([webhookAlert('db1'), webhookAlert('db3')]);
    expect(change.added.map((alert) => alert.labels.instance)).toEqual(['db3']);
    expect(change.resolved.map((alert) => alert.labels.instance)).toEqual(['db2']);
    expect(recordAfter(record, change, { groupId: 'g1', payload: notification }).alerts).toHaveLength(2);
  });

  it('keeps an alert missing from a truncated notification as firing, unless it is listed resolved', () => {
    const record = opened([webhookAlert('db1'), webhookAlert('db2')]);
    const truncated = WebhookPayloadSchema.parse({
      ...webhookPayload([webhookAlert('db1')]),
      truncatedAlerts: 1,
    });
    expect(groupChange(record, truncated, NOW)).toEqual({ kind: 'none', reason: 'same_firing_set' });
    const resolvedOne = WebhookPayloadSchema.parse({
      ...webhookPayload([webhookAlert('db1'), webhookAlert('db2', { status: 'resolved' })]),
      truncatedAlerts: 3,
    });
    expect(groupChange(record, resolvedOne, NOW)).toMatchObject({ kind: 'changed', added: [] });
  });

  it('resolves when nothing fires, keeping the alerts it showed, and a resolved group opens anew', () => {
    const record = opened([webhookAlert('db1')]);
    const notification = payload([webhookAlert('db1', { status: 'resolved' })]);
    const change = groupChange(record, notification, NOW);
    expect(change).toMatchObject({ kind: 'resolved', resolvedAt: NOW });
    if (change.kind !== 'resolved') return;
    const resolved = recordAfter(record, change, { groupId: 'g1', payload: notification });
    expect(resolved).toMatchObject({ status: 'resolved', resolvedAt: NOW, alerts: record.alerts });
    expect(groupChange(resolved, notification, NOW)).toMatchObject({ kind: 'none', reason: 'nothing_open' });
    expect(groupChange(resolved, payload([webhookAlert('db1')]), NOW).kind).toBe('opened');
  });
});
