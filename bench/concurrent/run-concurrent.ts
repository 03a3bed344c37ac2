// npm run bench -- concurrent: 1,000 runs at once against a model that takes 200 ms per answer; wall time of each
// runner against the bare loop. On 2 cores this is bound by CPU: 4,000 model turns arrive in bursts, and the
// runner that spends least per turn finishes first. Same method as the kernel bench (fresh process per runner and
// round, rotating order, warm-up), through the same session code.
import { mkdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { FakeModelProcess } from '../fake-model.js';
import { BASELINE_RUNNER, RUNNER_NAMES, type RunnerName, SAME_TRANSPORT_RUNNER } from '../runners/runner.js';
import { type ProcessResult, runSession } from '../session.js';
import { minMedian } from '../stats.js';

const RESULTS = fileURLToPath(new URL('../results/concurrent.json', import.meta.url));
/** Issue 16: kernel-sqlite's wall time for 1,000 concurrent runs at most 1.2× the bare loop's. */
const GOAL = { runner: 'kernel-sqlite' as RunnerName, maxRatio: 1.2 };

export async function runConcurrentBench(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      rounds: { type: 'string', default: '3' },
      runs: { type: 'string', default: '1000' },
      'delay-ms': { type: 'string', default: '200' },
      source: { type: 'boolean', default: false },
    },
  });
  const runs = Number(values.runs);
  const delayMs = Number(values['delay-ms']);
  const settings = {
    rounds: Number(values.rounds),
    warmup: 100,
    runs,
    concurrency: runs,
    quick: false,
    runners: [...RUNNER_NAMES],
    resultsPath: null,
    profileDir: null,
    source: values.source,
  };
  const fake = await FakeModelProcess.start(['--delay-ms', String(delayMs)]);
  const load = loadavg();
  console.log(
    `opsbot concurrency bench: ${runs} runs at once, 4 model turns each, the model answering after ${delayMs} ms; ${settings.rounds} rounds of ${settings.runners.join(', ')}, fresh process each, order rotating, ${settings.warmup} warm-up runs; load average ${load.map((v) => v.toFixed(2)).join(' ')}`,
  );
  let processes: ProcessResult[];
  try {
    ({ processes } = await runSession(settings, fake, (result) =>
      console.log(
        `  round ${result.round}.${result.position} ${result.runner.padEnd(14)} wall ${(result.measurement.wallMs / 1000).toFixed(2)} s  CPU ${((result.measurement.cpuUserMs + result.measurement.cpuSystemMs) / 1000).toFixed(2)} s`,
      ),
    ));
  } catch (error) {
    console.error(`\nBENCH FAILED: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  } finally {
    await fake.stop();
  }
  const wall = (runner: RunnerName) =>
    minMedian(processes.filter((p) => p.runner === runner).map((p) => p.measurement.wallMs / 1000));
  const base = wall(BASELINE_RUNNER);
  const rows = settings.runners.map((runner) => {
    const own = wall(runner);
    return { runner, wall_s: own, ratio: { min: own.min / base.min, median: own.median / base.median } };
  });
  console.log(`\n${'runner'.padEnd(14)} ${'wall s (min/median)'.padStart(20)} ${'× bare'.padStart(12)}`);
  for (const row of rows)
    console.log(
      `${row.runner.padEnd(14)} ${`${row.wall_s.min.toFixed(2)}/${row.wall_s.median.toFixed(2)}`.padStart(20)} ${`${row.ratio.min.toFixed(2)}/${row.ratio.median.toFixed(2)}`.padStart(12)}`,
    );
  const goal = rows.find((row) => row.runner === GOAL.runner)!;
  const met = goal.ratio.median <= GOAL.maxRatio;
  console.log(
    `\n${GOAL.runner} wall time: ${goal.ratio.median.toFixed(2)}× the bare loop (median), no errors; goal ≤${GOAL.maxRatio}×: ${met ? 'met' : 'NOT met'}`,
  );
  const sameTransport = settings.runners.includes(SAME_TRANSPORT_RUNNER)
    ? wall(SAME_TRANSPORT_RUNNER)
    : undefined;
  if (sameTransport) {
    console.log(
      `${GOAL.runner} against the bare loop on the kernel's own HTTP transport (the kernel's own work): ${(goal.wall_s.min / sameTransport.min).toFixed(2)}× (min) and ${(goal.wall_s.median / sameTransport.median).toFixed(2)}× (median)`,
    );
  }
  mkdirSync(dirname(RESULTS), { recursive: true });
  writeFileSync(
    RESULTS,
    `${JSON.stringify({ at: new Date().toISOString(), runs, delay_ms: delayMs, rounds: settings.rounds, load_average: load, rows, goal: { ...GOAL, ratio: goal.ratio.median, met }, processes }, null, 2)}\n`,
  );
  console.log(`wrote ${RESULTS}`);
  return met ? 0 : 1;
}
