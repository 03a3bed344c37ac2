// The alerts bench's storm: the webhook notifications Alertmanager sends for 1,000 alerts in 100 groups, as it sent
// them. Captured once per session from the real Alertmanager (Debian's 0.25) posting to a server that only records,
// or, where it is not installed, built from the test fixtures in the same version-4 shape and the same waves.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { alertmanagerInstalled, RealAlertmanager } from '../../tests/alerts/real-alertmanager.js';
import { webhookAlert, webhookPayload } from '../../tests/alerts/webhook-fixtures.js';

/** One webhook notification: when it was sent after the storm's first, its group, and its body byte for byte. */
export interface StormNotification {
  atMs: number;
  groupKey: string;
  body: string;
  /** Fingerprints of its firing alerts. */
  firing: string[];
}

export interface StormShape {
  groups: number;
  alertsPerGroup: number;
}

export interface Storm {
  source: 'alertmanager' | 'fixtures';
  notifications: StormNotification[];
  alerts: number;
  groups: number;
}

const TOKEN = 'bench-capture-token-0123456789abcdef';
const ago = (ms: number) => new Date(Date.now() - ms).toISOString();
const alertname = (group: number) => `StormAlert${String(group).padStart(3, '0')}`;

/** What one alert of the storm is, as posted to Alertmanager's API. */
function stormAlert(group: number, index: number, resolved: boolean) {
  return {
    labels: {
      alertname: alertname(group),
      instance: `host-${index}.prod.internal:9100`,
      job: 'node',
      severity: group % 10 === 0 ? 'critical' : 'warning',
    },
    annotations: {
      summary: `${alertname(group)} on host-${index}: disk 9${index}% full`,
      description: 'The root file system has had less than 10% free for 5 minutes.',
    },
    startsAt: ago(10 * 60_000),
    ...(resolved ? { endsAt: ago(1_000) } : {}),
    generatorURL: `http://prometheus.internal:9090/graph?g0.expr=disk_used_ratio%7Bjob%3D%22node%22%7D+%3E+0.9&g0.tab=1`,
  };
}

/** The real Alertmanager's notifications, in three waves: half of each group, all of it (and a resend), resolved. */
export async function captureFromAlertmanager(shape: StormShape): Promise<Storm> {
  const recorder = await startRecorder();
  const manager = await RealAlertmanager.start({ url: recorder.url, token: TOKEN });
  const wave = (count: number, resolved: boolean) =>
    Array.from({ length: shape.groups }, (_, group) =>
      Array.from({ length: count }, (_, index) => stormAlert(group, index, resolved)),
    ).flat();
  const latest = () => {
    const byGroup = new Map<string, StormNotification[]>();
    for (const n of recorder.notifications) byGroup.set(n.groupKey, [...(byGroup.get(n.groupKey) ?? []), n]);
    return byGroup;
  };
  const everyGroup = (test: (sent: StormNotification[]) => boolean) => {
    const groups = latest();
    return groups.size === shape.groups && [...groups.values()].every(test);
  };
  try {
    const half = Math.ceil(shape.alertsPerGroup / 2);
    await manager.post(wave(half, false));
    await until('a notification for every group', () => everyGroup(() => true));
    await manager.post(wave(shape.alertsPerGroup, false));
    // Every group notified with all its alerts firing, twice: the change, then a repeat_interval resend.
    await until('every group notified twice with all its alerts firing', () =>
      everyGroup((sent) => sent.filter((n) => n.firing.length === shape.alertsPerGroup).length >= 2),
    );
    await manager.post(wave(shape.alertsPerGroup, true));
    await until('every group resolved', () => everyGroup((sent) => sent.at(-1)!.firing.length === 0));
  } finally {
    await manager.stop();
    await recorder.close();
  }
  const first = recorder.notifications[0]!.atMs;
  return {
    source: 'alertmanager',
    notifications: recorder.notifications.map((n) => ({ ...n, atMs: n.atMs - first })),
    alerts: shape.groups * shape.alertsPerGroup,
    groups: shape.groups,
  };
}

/** The same waves from the fixtures, one second apart, where no Alertmanager is installed. */
export function buildFromFixtures(shape: StormShape): Storm {
  const notifications: StormNotification[] = [];
  const half = Math.ceil(shape.alertsPerGroup / 2);
  const waves: Array<{ atMs: number; count: number; status: 'firing' | 'resolved' }> = [
    { atMs: 0, count: half, status: 'firing' },
    { atMs: 1_000, count: shape.alertsPerGroup, status: 'firing' },
    { atMs: 3_000, count: shape.alertsPerGroup, status: 'firing' },
    { atMs: 4_000, count: shape.alertsPerGroup, status: 'resolved' },
  ];
  for (const { atMs, count, status } of waves) {
    for (let group = 0; group < shape.groups; group += 1) {
      const alerts = Array.from({ length: count }, (_, index) => {
        const alert = webhookAlert(`host-${index}.prod.internal:9100`, {
          status,
          fingerprint: `${group.toString(16).padStart(8, '0')}${index.toString(16).padStart(8, '0')}`,
        });
        alert.labels.alertname = alertname(group);
        return alert;
      });
      const name = alertname(group);
      const body = JSON.stringify(
        webhookPayload(alerts, {
          groupLabels: { alertname: name },
          commonLabels: { alertname: name, severity: 'critical' },
          groupKey: `{}:{alertname="${name}"}`,
        }),
      );
      notifications.push(recorded(atMs + group, body));
    }
  }
  return {
    source: 'fixtures',
    notifications,
    alerts: shape.groups * shape.alertsPerGroup,
    groups: shape.groups,
  };
}

export async function stormFor(shape: StormShape, source: 'auto' | Storm['source']): Promise<Storm> {
  if (source === 'fixtures' || (source === 'auto' && !alertmanagerInstalled)) return buildFromFixtures(shape);
  return captureFromAlertmanager(shape);
}

function recorded(atMs: number, body: string): StormNotification {
  const payload = JSON.parse(body) as {
    groupKey: string;
    alerts: Array<{ status: string; fingerprint: string }>;
  };
  const firing = payload.alerts.filter((a) => a.status === 'firing').map((a) => a.fingerprint);
  return { atMs, groupKey: payload.groupKey, body, firing };
}

/** A server that records every notification's body and answers 200 at once, as a receiver with no work would. */
async function startRecorder(): Promise<{
  url: string;
  notifications: StormNotification[];
  close(): Promise<void>;
}> {
  const notifications: StormNotification[] = [];
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      notifications.push(recorded(performance.now(), Buffer.concat(chunks).toString('utf8')));
      response.writeHead(200).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/alerts/alertmanager`,
    notifications,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function until(what: string, done: () => boolean, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`capturing the storm: timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
