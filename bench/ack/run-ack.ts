// npm run bench -- ack: how fast Slack events are acked under 200 events/s, opsbot against a plain Bolt app.
// Each (server, round) is a fresh process, order rotating; 1 s of unmeasured load warms it up, then N seconds of
// open-loop load (events go out on schedule whether or not earlier ones were acked). Reported: ack p50/p99/max,
// the server's CPU per event, min and median over rounds, and the ratios to plain Bolt.
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { startFakeSlackApi } from '../../tests/fakes/slack/fake-slack-api.js';
import { freePort, startRedisServer, stopRedisServer } from '../../tests/redis-server.js';
import { minMedian } from '../stats.js';
import { ACK_CHANNELS, ACK_USERS, type AckWindow, sendEvents } from './ack-load.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const RESULTS = join(ROOT, 'bench/results/ack.json');
const SECRET = 'bench-ack-signing-secret';
const SETTINGS = ['permissions:', '  default_role: viewer', '  tasks_per_minute: 1000000', ''].join('\n');

type ServerName = 'plain-bolt' | 'opsbot-gateway' | 'opsbot-all';
const SERVERS: ServerName[] = ['plain-bolt', 'opsbot-gateway', 'opsbot-all'];
const BASELINE: ServerName = 'plain-bolt';
/** Issue 16: a gateway's ack p99 at most twice plain Bolt's. */
const GOAL = { server: 'opsbot-gateway' as ServerName, maxRatio: 2 };

interface Context {
  dir: string;
  redisPort: number;
  slackApiUrl: string;
  profileDir?: string;
  /** opsbot from its TypeScript sources through tsx (bot/main.ts) instead of the bundle, as --source asks. */
  source: boolean;
}

export async function runAckBench(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      rounds: { type: 'string', default: '3' },
      seconds: { type: 'string', default: '10' },
      rate: { type: 'string', default: '200' },
      /** Each opsbot process writes a V8 CPU profile here (stopped with SIGTERM so it is written). */
      profile: { type: 'string' },
      /** Starts opsbot from its TypeScript sources through tsx, so that a profile names our files. */
      source: { type: 'boolean', default: false },
    },
  });
  const rounds = Number(values.rounds);
  const seconds = Number(values.seconds);
  const rate = Number(values.rate);
  const dir = mkdtempSync(join(tmpdir(), 'opsbot-ack-bench-'));
  writeFileSync(join(dir, 'opsbot.yaml'), SETTINGS);
  const redisPort = await freePort();
  const redis = await startRedisServer(redisPort);
  const slack = await startFakeSlackApi();
  // The people and channels the load comes from exist, as in a real workspace: their lookups succeed and are cached.
  for (const user of ACK_USERS) slack.addUser({ id: user, name: user.toLowerCase(), displayName: user });
  for (const channel of ACK_CHANNELS) slack.channels.set(channel, channel.toLowerCase());
  const context: Context = {
    dir,
    redisPort,
    slackApiUrl: slack.apiUrl,
    source: values.source,
    ...(values.profile ? { profileDir: values.profile } : {}),
  };
  const load = loadavg();
  console.log(
    `opsbot ack bench: ${rounds} rounds of ${SERVERS.join(', ')}, each in a fresh process, order rotating; ${rate} Slack events/s for ${seconds} s after 1 s of warm-up; load average ${load.map((v) => v.toFixed(2)).join(' ')}`,
  );
  const results: Record<ServerName, AckWindow[]> = {
    'plain-bolt': [],
    'opsbot-gateway': [],
    'opsbot-all': [],
  };
  try {
    for (let round = 0; round < rounds; round += 1) {
      const order = SERVERS.map((_, i) => SERVERS[(i + round) % SERVERS.length]!);
      for (const name of order) {
        const callsBefore = slack.calls.length;
        const window = await measure(name, context, round, { rate, seconds });
        window.webApiCalls = countByMethod(slack.calls.slice(callsBefore).map((call) => call.method));
        results[name].push(window);
        console.log(
          `  round ${round + 1} ${name.padEnd(15)} p50 ${window.p50.toFixed(1)} ms  p99 ${window.p99.toFixed(1)} ms  max ${window.max.toFixed(1)} ms  CPU ${window.cpuMsPerEvent.toFixed(3)} ms/event  errors ${window.errors}; Slack Web API calls ${JSON.stringify(window.webApiCalls)}`,
        );
      }
    }
  } finally {
    await slack.close();
    await stopRedisServer(redis);
    rmSync(dir, { recursive: true, force: true });
  }
  return report(results, { rounds, seconds, rate, load });
}

function report(
  results: Record<ServerName, AckWindow[]>,
  session: { rounds: number; seconds: number; rate: number; load: number[] },
): number {
  const summary = Object.fromEntries(
    SERVERS.map((name) => {
      const windows = results[name];
      return [
        name,
        {
          p50_ms: minMedian(windows.map((w) => w.p50)),
          p99_ms: minMedian(windows.map((w) => w.p99)),
          max_ms: minMedian(windows.map((w) => w.max)),
          cpu_ms_per_event: minMedian(windows.map((w) => w.cpuMsPerEvent)),
          errors: windows.reduce((sum, w) => sum + w.errors, 0),
        },
      ];
    }),
  ) as Record<
    ServerName,
    Record<'p50_ms' | 'p99_ms' | 'max_ms' | 'cpu_ms_per_event', { min: number; median: number }> & {
      errors: number;
    }
  >;
  const base = summary[BASELINE];
  const cell = (v: { min: number; median: number }, digits = 1) =>
    `${v.min.toFixed(digits)}/${v.median.toFixed(digits)}`.padStart(13);
  console.log(
    `\n${'server'.padEnd(15)} ${'p50 ms'.padStart(13)} ${'p99 ms'.padStart(13)} ${'p99 × bolt'.padStart(13)} ${'CPU ms/event'.padStart(13)} ${'CPU × bolt'.padStart(13)}  errors`,
  );
  for (const name of SERVERS) {
    const row = summary[name];
    const ratio = { min: row.p99_ms.min / base.p99_ms.min, median: row.p99_ms.median / base.p99_ms.median };
    const cpu = {
      min: row.cpu_ms_per_event.min / base.cpu_ms_per_event.min,
      median: row.cpu_ms_per_event.median / base.cpu_ms_per_event.median,
    };
    console.log(
      `${name.padEnd(15)} ${cell(row.p50_ms)} ${cell(row.p99_ms)} ${cell(ratio, 2)} ${cell(row.cpu_ms_per_event, 3)} ${cell(cpu, 2)}  ${row.errors}`,
    );
  }
  const goal = summary[GOAL.server];
  const goalRatio = goal.p99_ms.median / base.p99_ms.median;
  const met = goalRatio <= GOAL.maxRatio && goal.errors === 0;
  console.log(
    `\n${GOAL.server} ack p99: ${goalRatio.toFixed(2)}× plain Bolt (median); goal ≤${GOAL.maxRatio}×: ${met ? 'met' : 'NOT met'}`,
  );
  console.log(`min/median over ${session.rounds} rounds; ratio min = min/min, median = median/median`);
  mkdirSync(dirname(RESULTS), { recursive: true });
  writeFileSync(
    RESULTS,
    `${JSON.stringify({ at: new Date().toISOString(), ...session, summary, goal: { ...GOAL, ratio: goalRatio, met } }, null, 2)}\n`,
  );
  console.log(`wrote ${RESULTS}`);
  return met ? 0 : 1;
}

async function measure(
  name: ServerName,
  context: Context,
  round: number,
  load: { rate: number; seconds: number },
): Promise<AckWindow> {
  const port = await freePort();
  const child = startServer(name, context, port, round);
  try {
    await waitForHealth(port, child);
    const url = `http://127.0.0.1:${port}/slack/events`;
    const cpu = () => processCpuMs(child.pid!);
    // Warm-up: one second of the same load, unmeasured.
    await sendEvents({ url, secret: SECRET, rate: load.rate, seconds: 1, prefix: `w${round}${name}` });
    return await sendEvents({
      url,
      secret: SECRET,
      rate: load.rate,
      seconds: load.seconds,
      prefix: `m${round}${name}`,
      cpu,
    });
  } finally {
    child.kill(context.profileDir ? 'SIGTERM' : 'SIGKILL');
    if (child.exitCode === null && child.signalCode === null) await once(child, 'exit');
  }
}

function startServer(name: ServerName, context: Context, port: number, round: number): ChildProcess {
  const common = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    PORT: String(port),
    SLACK_SIGNING_SECRET: SECRET,
    SLACK_API_URL: context.slackApiUrl,
  };
  if (name === 'plain-bolt')
    return spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'bench/ack/plain-bolt-app.ts')], {
      cwd: ROOT,
      env: common,
      stdio: ['ignore', 'ignore', 'inherit'],
    });
  const dataDir = join(context.dir, `${name}-${round}`);
  const env = {
    ...common,
    SLACK_BOT_TOKEN: 'xoxb-bench',
    OPSBOT_CONFIG: join(context.dir, 'opsbot.yaml'),
    OPSBOT_DATA_DIR: dataDir,
    OPSBOT_PLAYGROUND: 'off',
    LOG_LEVEL: 'warn',
    ...(name === 'opsbot-gateway'
      ? { OPSBOT_ROLE: 'gateway', OPSBOT_STORE_URL: `redis://127.0.0.1:${context.redisPort}/${round + 1}` }
      : // One process: each event's run (a `system_stats` command) is stepped on the same event loop as the acks.
        { OPSBOT_STORE_URL: `sqlite://${join(dataDir, 'opsbot.sqlite')}` }),
  };
  const profile = context.profileDir
    ? // One folder per process: each thread (tsx's loader has its own) writes a profile there.
      ['--cpu-prof', `--cpu-prof-dir=${join(context.profileDir, `${name}-round${round + 1}`)}`]
    : [];
  const program = context.source ? ['--import', 'tsx', 'bot/main.ts'] : ['bin/start.js'];
  return spawn(process.execPath, [...profile, ...program], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
}

async function waitForHealth(port: number, child: ChildProcess): Promise<void> {
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the server exited ${child.exitCode} before it answered`);
    const ok = await fetch(`http://127.0.0.1:${port}/healthz`).then(
      (response) => response.ok,
      () => false,
    );
    if (ok) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

function countByMethod(methods: string[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const method of methods) counts[method] = (counts[method] ?? 0) + 1;
  return counts;
}

/** User plus system CPU of a process so far, from /proc (Linux), in ms. */
function processCpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]);
  return ticks * 10;
}
