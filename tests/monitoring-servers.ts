// The real Debian Prometheus (2.42) and Alertmanager (0.25) for every suite that needs them (the tools', the
// alerts'): started on free ports of 127.0.0.1 with temporary data folders, ready once `GET /-/ready` answers,
// reconfigured in place, and stopped (process killed, folders removed).
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './redis-server.js';

export const PROMETHEUS = '/usr/bin/prometheus';
export const ALERTMANAGER = '/usr/bin/prometheus-alertmanager';

const PACKAGES: Record<string, string> = {
  [PROMETHEUS]: 'prometheus',
  [ALERTMANAGER]: 'prometheus-alertmanager',
};

/**
 * Whether the servers a suite needs (both, by default) are installed. Under CI=true a missing one fails the file
 * with how to install it (CI installs them, so a silent skip would hide that it did not); elsewhere the tests
 * skip, and say why.
 */
export function monitoringServersInstalled(
  programs: readonly string[] = [PROMETHEUS, ALERTMANAGER],
): boolean {
  const missing = programs.filter((program) => !existsSync(program));
  if (missing.length === 0) return true;
  const message =
    `These tests need ${missing.join(' and ')}, which ${missing.length === 1 ? 'is' : 'are'} not installed. ` +
    `Install ${missing.length === 1 ? 'it' : 'them'} with: apt-get install -y ${missing.map((program) => PACKAGES[program]).join(' ')}`;
  if (process.env.CI === 'true') throw new Error(message);
  console.warn(`Skipping: ${message}`);
  return false;
}

export interface RunningServer {
  /** Its base URL, such as http://127.0.0.1:41234 (no trailing slash). */
  url: string;
  /** What the server wrote to stdout and stderr, for a failure message. */
  output(): string;
  close(): Promise<void>;
}

/** Polls `check` until it gives a value, up to `limitMs`; throws naming `what` and the last problem seen. */
export async function pollFor<T>(
  what: string,
  check: () => Promise<T | undefined>,
  limitMs = 20_000,
): Promise<T> {
  const stopAt = Date.now() + limitMs;
  let problem = 'not yet';
  for (;;) {
    try {
      const value = await check();
      if (value !== undefined) return value;
    } catch (error) {
      problem = error instanceof Error ? error.message : String(error);
    }
    if (Date.now() > stopAt) throw new Error(`gave up waiting for ${what} after ${limitMs} ms: ${problem}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** A server with its temporary folder, where a test may rewrite its configuration. */
interface StartedServer extends RunningServer {
  dir: string;
}

async function startServer(
  name: string,
  program: string,
  args: (port: number, dir: string) => string[],
  files: (dir: string) => void,
): Promise<StartedServer> {
  const dir = mkdtempSync(join(tmpdir(), `opsbot-${name}-`));
  files(dir);
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child: ChildProcess = spawn(program, args(port, dir), {
    stdio: ['ignore', 'pipe', 'pipe'],
    cwd: dir,
  });
  let output = '';
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString('utf8')).slice(-20_000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const exited = once(child, 'exit');
  // A test process that ends without closing (a crash, a killed worker) still takes its servers with it.
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  const close = async () => {
    process.off('exit', killOnExit);
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL');
      await exited;
    }
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await pollFor(`${name} on ${url}/-/ready`, async () => {
      if (child.exitCode !== null) throw new Error(`${name} exited with ${child.exitCode}: ${output}`);
      const response = await fetch(`${url}/-/ready`);
      return response.ok ? true : undefined;
    });
  } catch (error) {
    await close();
    throw new Error(`${error instanceof Error ? error.message : error}\n${output}`);
  }
  return { url, dir, output: () => output, close };
}

export interface PrometheusOptions {
  /** `host:port` targets of a job `target` scraped every second, beside Prometheus itself. */
  targets?: string[];
  /** A rule file's YAML (groups: …), evaluated every second. */
  rules?: string;
}

export function startPrometheus(options: PrometheusOptions = {}): Promise<RunningServer> {
  let selfTarget = '';
  return startServer(
    'prometheus',
    PROMETHEUS,
    (port, dir) => {
      selfTarget = `127.0.0.1:${port}`;
      writeFileSync(join(dir, 'prometheus.yml'), prometheusConfig(selfTarget, options));
      return [
        `--config.file=${join(dir, 'prometheus.yml')}`,
        `--web.listen-address=127.0.0.1:${port}`,
        `--storage.tsdb.path=${join(dir, 'data')}`,
      ];
    },
    (dir) => {
      if (options.rules !== undefined) writeFileSync(join(dir, 'rules.yml'), options.rules);
    },
  );
}

function prometheusConfig(self: string, options: PrometheusOptions): string {
  const lines = [
    'global:',
    '  scrape_interval: 1s',
    '  evaluation_interval: 1s',
    ...(options.rules === undefined ? [] : ['rule_files: [rules.yml]']),
    'scrape_configs:',
    '  - job_name: prometheus',
    `    static_configs: [{ targets: ["${self}"] }]`,
  ];
  if (options.targets?.length) {
    lines.push(
      '  - job_name: target',
      `    static_configs: [{ targets: [${options.targets.map((target) => `"${target}"`).join(', ')}] }]`,
    );
  }
  return `${lines.join('\n')}\n`;
}

export interface AlertmanagerServer extends RunningServer {
  /** Writes a new `alertmanager.yml` and has Alertmanager reload it (`POST /-/reload`), as an operator would. */
  reconfigure(config: string): Promise<void>;
}

/**
 * An Alertmanager with `config` as its `alertmanager.yml`: by default one receiver that sends nothing (the tool
 * tests only read and silence); `webhookConfig` makes it notify opsbot.
 */
export async function startAlertmanager(config = DEFAULT_ALERTMANAGER_CONFIG): Promise<AlertmanagerServer> {
  const server = await startServer(
    'alertmanager',
    ALERTMANAGER,
    (port, dir) => [
      `--config.file=${join(dir, 'alertmanager.yml')}`,
      `--web.listen-address=127.0.0.1:${port}`,
      `--storage.path=${join(dir, 'data')}`,
      // Empty: no gossip, which would otherwise bind 0.0.0.0:9094.
      '--cluster.listen-address=',
    ],
    (dir) => writeFileSync(join(dir, 'alertmanager.yml'), config),
  );
  const { dir, ...running } = server;
  return {
    ...running,
    async reconfigure(next) {
      writeFileSync(join(dir, 'alertmanager.yml'), next);
      const response = await fetch(`${server.url}/-/reload`, { method: 'POST' });
      if (!response.ok) throw new Error(`reload answered ${response.status}: ${await response.text()}`);
    },
  };
}

/** Where Alertmanager's webhook notifies: opsbot's receiver URL and its bearer token. */
export interface WebhookTarget {
  url: string;
  token: string;
}

/**
 * One webhook receiver for every alert, grouped by alertname, with `send_resolved` and the bearer token, and
 * intervals short enough that a test sees resends within seconds.
 */
export function webhookConfig(target: WebhookTarget): string {
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

/** Webhook notifications Alertmanager has sent, by outcome, from its own metrics. */
export async function webhookNotifications(alertmanager: string): Promise<{ sent: number; failed: number }> {
  const text = await (await fetch(`${alertmanager}/metrics`)).text();
  const value = (name: string) =>
    Number(new RegExp(`^${name}\\{integration="webhook"\\} (\\S+)$`, 'm').exec(text)?.[1] ?? 0);
  return {
    sent: value('alertmanager_notifications_total'),
    failed: value('alertmanager_notifications_failed_total'),
  };
}

const DEFAULT_ALERTMANAGER_CONFIG = `route:
  receiver: nowhere
  group_wait: 1s
  group_interval: 1s
  repeat_interval: 1h
receivers:
  - name: nowhere
`;

/** Posts alerts to Alertmanager's own API, as Prometheus would (an `endsAt` in the past resolves one). */
export async function postAlerts(alertmanager: string, alerts: readonly object[]): Promise<void> {
  const response = await fetch(`${alertmanager}/api/v2/alerts`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(alerts),
  });
  if (!response.ok)
    throw new Error(`POST /api/v2/alerts answered ${response.status}: ${await response.text()}`);
}

/** Polls Prometheus until `query` has at least one series, so a test's queries have real data. */
export function waitForSeries(prometheus: string, query: string): Promise<unknown[]> {
  return pollFor(`a series for ${query}`, async () => {
    const response = await fetch(`${prometheus}/api/v1/query?query=${encodeURIComponent(query)}`);
    const body = (await response.json()) as { data?: { result?: unknown[] } };
    const result = body.data?.result ?? [];
    return result.length > 0 ? result : undefined;
  });
}
