// npm run bench: kernel CPU per model turn against a bare openai-SDK loop, each runner in fresh processes.
// npm run bench -- <mode>: the other benches, each in its own folder (MODES below).
import { mkdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { FakeModelProcess } from './fake-model.js';
import { buildReport } from './report.js';
import { formatProcessLine, formatTable, formatTargetLine } from './report-table.js';
import { TOOL_STEPS, TURNS_PER_RUN } from './scripted-run.js';
import { runSession, type SessionResult } from './session.js';
import { readSettings, USAGE } from './settings.js';

/** The other benches: `npm run bench -- <mode> [its flags]`. Each returns the exit code. */
const MODES: Record<string, () => Promise<(argv: string[]) => Promise<number>>> = {
  // Gateway and workers on Redis against one process on SQLite.
  scale: async () => (await import('./scale/run-scale.js')).runScaleBench,
  // Slack ack latency at 200 events/s, opsbot against a plain Bolt app.
  ack: async () => (await import('./ack/run-ack.js')).runAckBench,
  // Start-up to /healthz and one CLI command, against plain node.
  startup: async () => (await import('./startup/run-startup.js')).runStartupBench,
  // 1,000 runs at once against a 200 ms model: wall time against the bare loop.
  concurrent: async () => (await import('./concurrent/run-concurrent.js')).runConcurrentBench,
  // Uncached prompt tokens against a naive resend-everything loop.
  prompts: async () => (await import('./prompts/run-prompts.js')).runPromptsBench,
  // Every issue 16 bench in turn, then one table of their goals.
  all: async () => (await import('./all.js')).runAllBenches,
  // One expiry-sweep pass with 10,000 waiting runs: the wait-expiry index against the old method.
  sweep: async () => (await import('./sweep/run-sweep.js')).runSweepBench,
  // An Alertmanager storm (1,000 alerts in 100 groups) against the receiver, and a plain node:http server.
  alerts: async () => (await import('./alerts/run-alerts.js')).runAlertsBench,
  // One MCP tool call (the test server's echo over stdio): opsbot's tool and whole runs against the bare SDK client.
  mcp: async () => (await import('./mcp/run-mcp.js')).runMcpBench,
};

const mode = process.argv[2] ? MODES[process.argv[2]] : undefined;
if (mode) process.exit(await (await mode())(process.argv.slice(3)));

const defaultResultsPath = fileURLToPath(new URL('./results/kernel.json', import.meta.url));

const outcome = readSettings(process.argv.slice(2), process.env, defaultResultsPath);
if (outcome.ok === 'help') {
  console.log(USAGE);
  process.exit(0);
}
if (!outcome.ok) {
  for (const problem of outcome.problems) console.error(`bench: ${problem}`);
  console.error(USAGE);
  process.exit(2);
}
const settings = outcome.settings;

const startedAt = new Date();
const loadAtStart = loadavg();
const fake = await FakeModelProcess.start();
let session: SessionResult | undefined;
try {
  console.log(
    `opsbot kernel bench${settings.quick ? ' (quick)' : ''}: ${settings.rounds} rounds of ${settings.runners.join(', ')}, each runner in a fresh process per round, order rotating; per process ${settings.warmup} warm-up runs, then ${settings.runs} measured runs × ${TURNS_PER_RUN} model turns (${TOOL_STEPS} tool steps + answer), concurrency ${settings.concurrency}; fake model in its own process at ${fake.baseURL}; load average ${loadAtStart.map((v) => v.toFixed(2)).join(' ')}`,
  );
  session = await runSession(settings, fake, (result) => console.log(formatProcessLine(result)));
} catch (error) {
  console.error(`\nBENCH FAILED: ${error instanceof Error ? error.message : String(error)}`);
  console.error('No figures are reported for broken runs.');
  process.exitCode = 1;
} finally {
  await fake.stop();
}

if (session) {
  const loadAtEnd = loadavg();
  const report = buildReport(settings, session, {
    startedAt,
    finishedAt: new Date(),
    loadAtStart,
    loadAtEnd,
  });
  console.log(`\n${formatTable(report)}\n`);
  console.log(formatTargetLine(report));
  console.log(
    `min and median over ${settings.rounds} rounds; ratio min = min/min, median = median/median; load average at end ${loadAtEnd.map((v) => v.toFixed(2)).join(' ')}`,
  );
  if (settings.resultsPath) {
    mkdirSync(dirname(settings.resultsPath), { recursive: true });
    writeFileSync(settings.resultsPath, `${JSON.stringify(report, null, 2)}\n`);
    console.log(`wrote ${settings.resultsPath}`);
  } else {
    console.log('results file left as it was (--quick, --only or --no-write; --out FILE writes one anyway)');
  }
}
