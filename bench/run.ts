// npm run bench: kernel overhead per model turn against a bare openai-SDK loop, with the fake model in a child process.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { FakeModelProcess } from './fake-model.js';
import { buildReport, formatTable, targetLine } from './report.js';
import { RUNNER_NAMES, type RunnerName } from './runners.js';
import { type Measurements, measureRunners } from './schedule.js';
import { TOOL_STEPS, TURNS_PER_RUN } from './scripted-run.js';

const resultsPath = fileURLToPath(new URL('./results/kernel.json', import.meta.url));

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '1000' },
    concurrency: { type: 'string', default: '50' },
    warmup: { type: 'string', default: '50' },
    /** Comma-separated runner names, e.g. for profiling one of them; results are then not written. */
    only: { type: 'string' },
    /** Print the figures without replacing bench/results/kernel.json. */
    'no-write': { type: 'boolean', default: false },
  },
});

const settings = {
  runs: positiveInteger('runs', values.runs),
  concurrency: positiveInteger('concurrency', values.concurrency),
  warmup: positiveInteger('warmup', values.warmup, { allowZero: true }),
  turnsPerRun: TURNS_PER_RUN,
};
const selected = values.only ? parseRunnerList(values.only) : [...RUNNER_NAMES];

const fake = await FakeModelProcess.start();
let measured: Measurements = {};
try {
  console.log(
    `opsbot kernel bench: ${settings.runs} runs × ${TURNS_PER_RUN} model turns (${TOOL_STEPS} tool steps + answer), concurrency ${settings.concurrency}, warm-up ${settings.warmup}; fake model in child process at ${fake.baseURL}`,
  );
  measured = await measureRunners(selected, settings, fake, (name, measurement) => {
    const cpu = (measurement.cpuUserMs + measurement.cpuSystemMs) / measurement.modelTurns;
    console.log(
      `  ${name.padEnd(14)} ${cpu.toFixed(3)} ms CPU per turn, ${(measurement.wallMs / 1000).toFixed(2)} s wall`,
    );
  });
} catch (error) {
  console.error(`\nBENCH FAILED: ${error instanceof Error ? error.message : String(error)}`);
  console.error('No figures are reported for broken runs.');
  process.exitCode = 1;
} finally {
  await fake.stop();
}

if (process.exitCode !== 1) {
  const report = buildReport(measured, settings);
  console.log(`\n${formatTable(report)}\n`);
  console.log(`rss: ${report.rss_mb_is}`);
  console.log(targetLine(report));
  if (values.only || values['no-write']) {
    console.log(`(${values.only ? '--only' : '--no-write'} given: bench/results/kernel.json left as it was)`);
  } else {
    mkdirSync(dirname(resultsPath), { recursive: true });
    writeFileSync(resultsPath, `${JSON.stringify(report, null, 2)}\n`);
    console.log(`wrote ${resultsPath}`);
  }
}

function positiveInteger(
  flag: string,
  raw: string | undefined,
  options: { allowZero?: boolean } = {},
): number {
  const value = Number(raw);
  const minimum = options.allowZero ? 0 : 1;
  if (!Number.isInteger(value) || value < minimum) {
    console.error(`--${flag} must be an integer ≥ ${minimum}; got ${JSON.stringify(raw)}`);
    process.exit(2);
  }
  return value;
}

function parseRunnerList(raw: string): RunnerName[] {
  const names = raw.split(',').map((name) => name.trim());
  for (const name of names) {
    if (!(RUNNER_NAMES as readonly string[]).includes(name)) {
      console.error(`--only: unknown runner "${name}"; choose from ${RUNNER_NAMES.join(', ')}`);
      process.exit(2);
    }
  }
  return names as RunnerName[];
}
