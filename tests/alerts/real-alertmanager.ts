// The real Alertmanager (Debian's prometheus-alertmanager 0.25) on a free port with a temporary data folder, its
// webhook receiver pointing at opsbot: alerts are posted to its API, and it notifies as it would in production.
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const ALERTMANAGER_BINARY = '/usr/bin/prometheus-alertmanager';
export const alertmanagerInstalled = existsSync(ALERTMANAGER_BINARY);

export interface AlertInput {
  labels: Record<string, string>;
  annotations?: Record<string, string>;
  startsAt?: string;
  endsAt?: string;
  generatorURL?: string;
}

export interface ReceiverTarget {
  url: string;
  token: string;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

function configYaml(target: ReceiverTarget): string {
  return [
    'route:',
    '  receiver: opsbot',
    "  group_by: ['alertname']",
    '  group_wait: 1s',
    '  group_interval: 1s',
    '  repeat_interval: 2s',
    'receivers:',
    '  - name: opsbot',
    '    webhook_configs:',
    `      - url: '${target.url}'`,
    '        send_resolved: true',
    '        max_alerts: 0',
    '        http_config:',
    '          authorization:',
    '            type: Bearer',
    `            credentials: '${target.token}'`,
    '',
  ].join('\n');
}

export class RealAlertmanager {
  private output = '';

  private constructor(
    private readonly child: ChildProcess,
    private readonly dir: string,
    readonly url: string,
  ) {
    child.stdout?.on('data', (chunk) => this.keep(chunk));
    child.stderr?.on('data', (chunk) => this.keep(chunk));
  }

  static async start(target: ReceiverTarget): Promise<RealAlertmanager> {
    const dir = mkdtempSync(join(tmpdir(), 'opsbot-alertmanager-'));
    writeFileSync(join(dir, 'alertmanager.yml'), configYaml(target));
    const port = await freePort();
    const child = spawn(
      ALERTMANAGER_BINARY,
      [
        `--config.file=${join(dir, 'alertmanager.yml')}`,
        `--web.listen-address=127.0.0.1:${port}`,
        `--storage.path=${join(dir, 'data')}`,
        '--cluster.listen-address=',
        '--log.level=warn',
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    const manager = new RealAlertmanager(child, dir, `http://127.0.0.1:${port}`);
    await manager.until('Alertmanager to be ready', async () => {
      if (child.exitCode !== null) throw new Error(`alertmanager exited: ${manager.output}`);
      const response = await fetch(`${manager.url}/-/ready`).catch(() => undefined);
      return response?.ok ? true : undefined;
    });
    return manager;
  }

  /** Points the webhook at another opsbot (a restarted one, on a new port), as a config reload. */
  async retarget(target: ReceiverTarget): Promise<void> {
    writeFileSync(join(this.dir, 'alertmanager.yml'), configYaml(target));
    const response = await fetch(`${this.url}/-/reload`, { method: 'POST' });
    if (!response.ok) throw new Error(`reload answered ${response.status}: ${await response.text()}`);
  }

  async post(alerts: AlertInput[]): Promise<void> {
    const response = await fetch(`${this.url}/api/v2/alerts`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(alerts),
    });
    if (!response.ok)
      throw new Error(`POST /api/v2/alerts answered ${response.status}: ${await response.text()}`);
  }

  /** Webhook notifications Alertmanager has sent, by outcome, from its own metrics. */
  async notifications(): Promise<{ sent: number; failed: number }> {
    const text = await (await fetch(`${this.url}/metrics`)).text();
    const value = (name: string) =>
      Number(new RegExp(`^${name}\\{integration="webhook"\\} (\\S+)$`, 'm').exec(text)?.[1] ?? 0);
    return {
      sent: value('alertmanager_notifications_total'),
      failed: value('alertmanager_notifications_failed_total'),
    };
  }

  async stop(): Promise<void> {
    if (this.child.exitCode === null) {
      const exited = new Promise((resolve) => this.child.once('exit', resolve));
      this.child.kill('SIGTERM');
      await exited;
    }
    rmSync(this.dir, { recursive: true, force: true });
  }

  private keep(chunk: Buffer): void {
    this.output = (this.output + chunk.toString()).slice(-4_000);
  }

  private async until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 15_000): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const value = await probe();
      if (value !== undefined) return value;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${this.output}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}
