// The two receivers of the alerts bench, each a fresh process: opsbot as `npm start` runs it (the bundle, SQLite in
// a temp folder, the playground as the chat that counts posts), and the plain node:http server that only parses.
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { transformSync } from 'esbuild';
import { alertGroupId } from '../../bot/alerts/alert-group-repository.js';
import { freePort } from '../../tests/redis-server.js';
import type { GroupPosts } from './storm-expectations.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const RECEIVER_TOKEN = 'bench-alerts-token-Q7x9Lm2Pz4Rw8Kd3Vn6Tb5';
export const ALERTS_CHANNEL = 'alerts';

export type ReceiverName = 'opsbot' | 'plain-node';

export interface RunningReceiver {
  url: string;
  pid: number;
  /** Set for opsbot: its HTTP server's base URL, for the playground API and /metrics. */
  base?: string;
  stop(): Promise<void>;
}

export interface OpsbotOptions {
  dir: string;
  round: number;
  /** The fake model's base URL; without it, investigations are off. */
  modelUrl?: string;
  maxInvestigationsPerHour: number;
}

export async function startOpsbot(options: OpsbotOptions): Promise<RunningReceiver> {
  const port = await freePort();
  const dataDir = join(options.dir, `opsbot-${options.round}`);
  const config = join(options.dir, `opsbot-${options.round}.yaml`);
  writeFileSync(
    config,
    [
      'alerts:',
      `  channel: 'playground:${ALERTS_CHANNEL}'`,
      `  investigate: ${options.modelUrl ? 'true' : 'false'}`,
      `  max_investigations_per_hour: ${options.maxInvestigationsPerHour}`,
      '',
    ].join('\n'),
  );
  const child = spawn(process.execPath, ['bin/start.js'], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      PORT: String(port),
      HOST: '127.0.0.1',
      OPSBOT_CONFIG: config,
      OPSBOT_DATA_DIR: dataDir,
      OPSBOT_STORE_URL: `sqlite://${join(dataDir, 'opsbot.sqlite')}`,
      OPSBOT_ALERTS_TOKEN: RECEIVER_TOKEN,
      OPSBOT_METRICS: 'on',
      LOG_LEVEL: 'warn',
      ...(options.modelUrl
        ? { OPENAI_BASE_URL: options.modelUrl, OPENAI_MODEL: 'fake-model', OPENAI_API_KEY: 'bench' }
        : {}),
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const base = `http://127.0.0.1:${port}`;
  // Ready, not only healthy: every service has started, as it has long before a real storm.
  await until(child, async () => (await fetch(`${base}/readyz`).catch(() => undefined))?.ok === true);
  return { url: `${base}/alerts/alertmanager`, pid: child.pid!, base, stop: () => stop(child) };
}

/**
 * The baseline as plain JavaScript in `dir`: node running the .ts file itself would load its type stripper, about
 * 30 MB of RSS that is not the server's.
 */
export function writePlainReceiver(dir: string): string {
  const source = readFileSync(join(ROOT, 'bench/alerts/plain-receiver.ts'), 'utf8');
  const script = join(dir, 'plain-receiver.mjs');
  writeFileSync(script, transformSync(source, { loader: 'ts', format: 'esm' }).code);
  return script;
}

export async function startPlainReceiver(script: string): Promise<RunningReceiver> {
  const child = spawn(process.execPath, [script], {
    cwd: ROOT,
    env: { PATH: process.env.PATH, PORT: '0' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: child.stdout! });
  const [line] = (await once(lines, 'line')) as [string];
  const { port } = JSON.parse(line) as { port: number };
  return { url: `http://127.0.0.1:${port}/alerts/alertmanager`, pid: child.pid!, stop: () => stop(child) };
}

/** Resident and peak resident memory of a process, in MB (Linux, /proc). */
export function memoryOf(pid: number): { rssMb: number; peakRssMb: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
  return { rssMb: kb('VmRSS') / 1024, peakRssMb: kb('VmHWM') / 1024 };
}

/** User plus system CPU of a process so far, in ms (Linux, /proc; clock ticks of 10 ms). */
export function cpuMsOf(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** The posts in the playground channel, per group (by groupKey): roots, change replies, and the rest of each thread. */
export async function postsByGroup(
  base: string,
  groupKeys: Iterable<string>,
): Promise<Map<string, GroupPosts>> {
  const keyOf = new Map([...groupKeys].map((key) => [alertGroupId(key), key]));
  const messages = await channelMessages(base);
  const groupOfRoot = new Map<string, string>();
  const counts = new Map<string, GroupPosts>();
  const countFor = (key: string) => {
    const found = counts.get(key) ?? { roots: 0, changes: 0, others: 0 };
    counts.set(key, found);
    return found;
  };
  for (const message of messages) {
    const { content } = message;
    if (content.kind !== 'alert_group' || typeof content.groupId !== 'string') continue;
    const key = keyOf.get(content.groupId) ?? `unknown group ${content.groupId}`;
    if (content.part === 'root') {
      countFor(key).roots += 1;
      groupOfRoot.set(message.id, key);
    } else countFor(key).changes += 1;
  }
  for (const message of messages) {
    if (message.content.kind === 'alert_group' || !message.threadId) continue;
    const key = groupOfRoot.get(message.threadId);
    if (key) countFor(key).others += 1;
  }
  return counts;
}

interface ChannelMessage {
  id: string;
  threadId?: string;
  content: { kind: string; groupId?: unknown; part?: unknown };
}

async function channelMessages(base: string): Promise<ChannelMessage[]> {
  const all: ChannelMessage[] = [];
  let before: number | null = null;
  do {
    const query: string = before === null ? '' : `&before=${before}`;
    const response = await fetch(`${base}/api/channels/${ALERTS_CHANNEL}/messages?limit=500${query}`);
    if (response.status === 404) return all;
    if (!response.ok) throw new Error(`the playground answered ${response.status}: ${await response.text()}`);
    const page = (await response.json()) as { messages: ChannelMessage[]; earlier: number | null };
    all.push(...page.messages);
    before = page.earlier;
  } while (before !== null);
  return all;
}

/** A counter's total over its labels, from opsbot's /metrics. */
export async function metricTotal(base: string, name: string): Promise<number> {
  const text = await (await fetch(`${base}/metrics`)).text();
  let total = 0;
  for (const match of text.matchAll(new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`, 'gm')))
    total += Number(match[1]);
  return total;
}

async function until(child: ChildProcess, ready: () => Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the receiver exited ${child.exitCode} before it was ready`);
    if (await ready()) return;
    if (Date.now() > deadline) throw new Error('the receiver was not ready within 30 s');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGKILL');
  await exited;
}
