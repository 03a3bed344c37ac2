// npm run bench -- alerts: an alert storm (1,000 alerts in 100 groups, as the real Alertmanager sent them) replayed
// against opsbot's receiver and, as the baseline, a plain node:http server that only parses the bodies. Each
// (receiver, round) is a fresh process, the order rotating. Reported: response time p50/p99, posts per group
// (checked: 1 root plus one reply per change), investigations started (capped), and RSS; min and median over rounds.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { type FakeOpenAIServer, startFakeOpenAIServer, text } from '../../tests/fakes/openai-server.js';
import { roundOrders } from '../schedule.js';
import { type Storm, stormFor } from './alert-storm.js';
import { type AlertsRound, printReport, summarize } from './alerts-report.js';
import {
  cpuMsOf,
  memoryOf,
  metricTotal,
  postsByGroup,
  RECEIVER_TOKEN,
  type ReceiverName,
  type RunningReceiver,
  startOpsbot,
  startPlainReceiver,
  writePlainReceiver,
} from './receiver-process.js';
import { expectedPosts, postProblems } from './storm-expectations.js';
import { replayStorm } from './storm-replay.js';

const RESULTS = fileURLToPath(new URL('../results/alerts.json', import.meta.url));
const RECEIVERS: ReceiverName[] = ['opsbot', 'plain-node'];
const ANSWER =
  'The disk filled from /var/log: logrotate has not run since the upgrade (evidence: disk_used_ratio).';

export async function runAlertsBench(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      rounds: { type: 'string', default: '5' },
      groups: { type: 'string', default: '100' },
      'alerts-per-group': { type: 'string', default: '10' },
      /** alerts.max_investigations_per_hour; 0 turns investigations off (no model). */
      investigations: { type: 'string', default: '10' },
      /** Where the storm comes from: the real Alertmanager when installed (auto), or the fixtures. */
      payloads: { type: 'string', default: 'auto' },
      'no-write': { type: 'boolean', default: false },
    },
  });
  const rounds = Number(values.rounds);
  const shape = { groups: Number(values.groups), alertsPerGroup: Number(values['alerts-per-group']) };
  const cap = Number(values.investigations);
  const payloads = values.payloads as 'auto' | Storm['source'];
  if (!['auto', 'alertmanager', 'fixtures'].includes(payloads)) {
    console.error('bench alerts: --payloads takes auto, alertmanager or fixtures');
    return 2;
  }
  const load = loadavg();
  const storm = await stormFor(shape, payloads);
  const expected = expectedPosts(storm.notifications);
  const bytes = storm.notifications.reduce((sum, n) => sum + Buffer.byteLength(n.body), 0);
  console.log(
    `opsbot alerts bench: ${storm.alerts} alerts in ${storm.groups} groups, ${storm.notifications.length} webhook notifications (${(bytes / 1024).toFixed(0)} KiB) over ${(storm.notifications.at(-1)!.atMs / 1000).toFixed(1)} s, ${storm.source === 'alertmanager' ? 'captured from the real Alertmanager 0.25' : 'built from the fixtures'}; ${rounds} rounds of ${RECEIVERS.join(', ')}, each a fresh process, order rotating; investigations capped at ${cap}/hour; load average ${load.map((v) => v.toFixed(2)).join(' ')}`,
  );
  const dir = mkdtempSync(join(tmpdir(), 'opsbot-alerts-bench-'));
  const plainScript = writePlainReceiver(dir);
  const model = cap > 0 ? await startFakeOpenAIServer({ record: false }) : undefined;
  model?.respond(() => text(ANSWER));
  const results: Record<ReceiverName, AlertsRound[]> = { opsbot: [], 'plain-node': [] };
  const problems: string[] = [];
  try {
    for (const [round, order] of roundOrders(RECEIVERS, rounds).entries()) {
      for (const name of order) {
        const measured = await measure(
          name,
          { dir, round, storm, expected, cap, model, plainScript },
          problems,
        );
        results[name].push(measured);
        console.log(
          `  round ${round + 1} ${name.padEnd(10)} p50 ${measured.p50Ms.toFixed(2)} ms  p99 ${measured.p99Ms.toFixed(2)} ms  max ${measured.maxMs.toFixed(1)} ms  storm ${(measured.wallMs / 1000).toFixed(2)} s  CPU ${measured.cpuMsPerNotification.toFixed(2)} ms/notification  RSS ${measured.rssMb.toFixed(0)} MB (peak ${measured.peakRssMb.toFixed(0)})  HTTP ${JSON.stringify(measured.statuses)}${measured.outcomes ? `  outcomes ${JSON.stringify(measured.outcomes)}` : ''}${measured.posts ? `  posts/group ${measured.posts.perGroup}  investigations ${measured.posts.investigations}` : ''}`,
        );
      }
    }
  } finally {
    await model?.close();
    rmSync(dir, { recursive: true, force: true });
  }
  const summary = summarize(results);
  printReport(summary, { rounds, expected, cap, problems });
  if (!values['no-write']) {
    mkdirSync(dirname(RESULTS), { recursive: true });
    const session = { rounds, ...shape, investigationsCap: cap, source: storm.source, load };
    const record = { at: new Date().toISOString(), ...session, notifications: storm.notifications.length };
    writeFileSync(RESULTS, `${JSON.stringify({ ...record, summary, results, problems }, null, 2)}\n`);
    console.log(`wrote ${RESULTS}`);
  }
  return problems.length === 0 ? 0 : 1;
}

interface MeasureContext {
  dir: string;
  round: number;
  storm: Storm;
  expected: ReturnType<typeof expectedPosts>;
  cap: number;
  model: FakeOpenAIServer | undefined;
  plainScript: string;
}

async function measure(
  name: ReceiverName,
  context: MeasureContext,
  problems: string[],
): Promise<AlertsRound> {
  const { storm } = context;
  const receiver: RunningReceiver =
    name === 'opsbot'
      ? await startOpsbot({
          dir: context.dir,
          round: context.round,
          maxInvestigationsPerHour: Math.max(context.cap, 1),
          ...(context.model ? { modelUrl: context.model.baseURL } : {}),
        })
      : await startPlainReceiver(context.plainScript);
  try {
    const cpuBefore = cpuMsOf(receiver.pid);
    const replay = await replayStorm(receiver.url, RECEIVER_TOKEN, storm.notifications);
    const cpuMs = cpuMsOf(receiver.pid) - cpuBefore;
    const atEnd = memoryOf(receiver.pid);
    const sorted = [...replay.latenciesMs].sort((a, b) => a - b);
    const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
    const round: AlertsRound = {
      p50Ms: at(0.5),
      p99Ms: at(0.99),
      maxMs: sorted.at(-1)!,
      wallMs: replay.wallMs,
      cpuMsPerNotification: cpuMs / storm.notifications.length,
      rssMb: atEnd.rssMb,
      peakRssMb: atEnd.peakRssMb,
      statuses: replay.statuses,
    };
    const label = `round ${context.round + 1} ${name}`;
    if (replay.statuses['200'] !== storm.notifications.length) {
      problems.push(`${label}: not every notification was answered 200: ${JSON.stringify(replay.statuses)}`);
    }
    if (receiver.base) {
      round.outcomes = replay.outcomes;
      round.posts = await checkPosts(receiver.base, context, label, problems);
      round.peakRssMb = memoryOf(receiver.pid).peakRssMb;
    }
    return round;
  } finally {
    await receiver.stop();
  }
}

/** Waits for the investigations to answer, then counts the posts of each group against what the storm calls for. */
async function checkPosts(
  base: string,
  context: MeasureContext,
  label: string,
  problems: string[],
): Promise<NonNullable<AlertsRound['posts']>> {
  // The receiver answers once each change is saved: its posts, and the investigations they start, may still be
  // under way when the last answer comes.
  for (const deadline = Date.now() + 30_000; Date.now() < deadline; ) {
    if ((await metricTotal(base, 'opsbot_alert_groups_pending_posts')) === 0) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const pending = await metricTotal(base, 'opsbot_alert_groups_pending_posts');
  if (pending > 0) problems.push(`${label}: ${pending} groups still had posts to make 30 s after the storm`);
  const investigations = await metricTotal(base, 'opsbot_alert_investigations_started_total');
  const wanted = context.model ? Math.min(context.cap, context.storm.groups) : 0;
  if (investigations !== wanted) {
    problems.push(`${label}: ${investigations} investigations started, ${wanted} expected (the cap)`);
  }
  let counted = await postsByGroup(base, context.expected.keys());
  const answered = () => [...counted.values()].filter((group) => group.others > 0).length;
  for (const deadline = Date.now() + 30_000; answered() < investigations && Date.now() < deadline; ) {
    await new Promise((resolve) => setTimeout(resolve, 200));
    counted = await postsByGroup(base, context.expected.keys());
  }
  if (answered() < investigations) {
    problems.push(
      `${label}: ${answered()} of ${investigations} investigations posted in their thread within 30 s`,
    );
  }
  for (const problem of postProblems(context.expected, counted)) problems.push(`${label}: ${problem}`);
  const shapes = new Map<string, number>();
  for (const group of counted.values()) {
    const extra = group.others ? ` + ${group.others} investigation posts` : '';
    const shape = `${group.roots} root + ${group.changes} changes${extra}`;
    shapes.set(shape, (shapes.get(shape) ?? 0) + 1);
  }
  const perGroup = [...shapes].map(([shape, groups]) => `${shape} (${groups} groups)`).join(', ');
  const total = [...counted.values()].reduce((sum, g) => sum + g.roots + g.changes + g.others, 0);
  return { perGroup, total, investigations };
}
