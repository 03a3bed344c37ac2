// The webhook payload schema: version 4 as Alertmanager sends it is taken; anything else is refused with one line.
import { describe, expect, it } from 'vitest';
import { payloadProblem, promqlOf, WebhookPayloadSchema } from '../../bot/alerts/alertmanager-payload.js';
import { webhookAlert, webhookPayload } from './webhook-fixtures.js';

function problem(value: unknown): string | undefined {
  const parsed = WebhookPayloadSchema.safeParse(value);
  return parsed.success ? undefined : payloadProblem(parsed.error);
}

describe('the Alertmanager webhook payload', () => {
  it('takes version 4, with the zero endsAt of a firing alert', () => {
    const parsed = WebhookPayloadSchema.parse(webhookPayload([webhookAlert('db1')]));
    expect(parsed.alerts[0]?.startsAt).toBe(Date.parse('2026-01-01T12:00:00Z'));
    expect(parsed.groupKey).toBe('{}:{alertname="DiskFull"}');
  });

  it('refuses another version in words', () => {
    expect(problem(webhookPayload([webhookAlert('db1')], { version: '3' }))).toBe(
      'expected a webhook payload of version "4"; this one is of another version',
    );
  });

  it('refuses a payload with missing fields, naming the first', () => {
    const { groupKey: _dropped, ...rest } = webhookPayload([webhookAlert('db1')]);
    expect(problem(rest)).toMatch(/^groupKey: /);
    const alert: Record<string, unknown> = { ...webhookAlert('db1') };
    delete alert.fingerprint;
    expect(problem(webhookPayload([alert as never]))).toMatch(/^alerts\.0\.fingerprint: /);
  });

  it('refuses a label set too large to post', () => {
    const labels = Object.fromEntries(Array.from({ length: 80 }, (_, i) => [`label_${i}`, 'x']));
    const alert = { ...webhookAlert('db1'), labels };
    expect(problem(webhookPayload([alert]))).toMatch(/^alerts\.0\.labels: a label set too large to post/);
    const long = {
      ...webhookAlert('db1'),
      labels: { alertname: 'x', text: 'y'.repeat(2_048), more: 'z'.repeat(2_048) },
    };
    expect(problem(webhookPayload([long]))).toMatch(/too large to post/);
  });

  it('finds the PromQL expression in a generatorURL', () => {
    expect(promqlOf('http://prometheus:9090/graph?g0.expr=disk_used_ratio+%3E+0.9&g0.tab=1')).toBe(
      'disk_used_ratio > 0.9',
    );
    expect(promqlOf('not a url')).toBeUndefined();
    expect(promqlOf('http://prometheus:9090/graph')).toBeUndefined();
  });
});
