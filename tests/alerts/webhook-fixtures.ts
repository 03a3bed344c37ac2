// Alertmanager webhook payloads as 0.25 sends them (the shape captured from the real one), for the unit tests.
export function webhookAlert(
  instance: string,
  options: { status?: 'firing' | 'resolved'; startsAt?: string; fingerprint?: string } = {},
) {
  return {
    status: options.status ?? 'firing',
    labels: { alertname: 'DiskFull', instance, severity: 'critical' } as Record<string, string>,
    annotations: { summary: `Disk on ${instance} is 95% full` },
    startsAt: options.startsAt ?? '2026-01-01T12:00:00Z',
    endsAt: options.status === 'resolved' ? '2026-01-01T12:14:00Z' : '0001-01-01T00:00:00Z',
    generatorURL: 'http://prometheus:9090/graph?g0.expr=disk_used_ratio+%3E+0.9&g0.tab=1',
    fingerprint: options.fingerprint ?? Buffer.from(instance).toString('hex').padEnd(16, '0'),
  };
}

export function webhookPayload(
  alerts: ReturnType<typeof webhookAlert>[],
  overrides: Record<string, unknown> = {},
) {
  return {
    receiver: 'opsbot',
    status: alerts.some((alert) => alert.status === 'firing') ? 'firing' : 'resolved',
    alerts,
    groupLabels: { alertname: 'DiskFull' },
    commonLabels: { alertname: 'DiskFull', severity: 'critical' },
    commonAnnotations: {},
    externalURL: 'http://alertmanager:9093',
    version: '4',
    groupKey: '{}:{alertname="DiskFull"}',
    truncatedAlerts: 0,
    ...overrides,
  };
}
