// npm run bench -- scale: runs/s and time from Slack event to answer for a gateway with 1 and 2 workers on
// Redis, against one `all` process on SQLite, with Redis's commands and bytes per run.
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { dirname } from 'node:path';
import { FakeModelProcess } from '../fake-model.js';
import { roundOrders } from '../schedule.js';
import { type ConfigurationRound, measureConfiguration } from './measure-configuration.js';
import { SCALE_TURNS_PER_RUN } from './scale-model.js';
import { formatRoundLine, formatScaleTable, summarize } from './scale-report.js';
import { readScaleSettings, SCALE_USAGE } from './scale-settings.js';
import { SlackLoad } from './slack-load.js';

export async function runScaleBench(args: string[]): Promise<number> {
  const settings = readScaleSettings(args);
  if (settings === 'help') {
    console.log(SCALE_USAGE);
    return 0;
  }
  if ('problem' in settings) {
    console.error(`bench scale: ${settings.problem}\n${SCALE_USAGE}`);
    return 2;
  }
  // Ctrl-C: exit through process.exit, so that the bot processes and redis-server go too (cluster.ts).
  process.once('SIGINT', () => process.exit(130));
  const startedAt = new Date();
  const loadAtStart = loadavg();
  const fake = await FakeModelProcess.start(['--scale-delay-ms', String(settings.delayMs)]);
  const load = await SlackLoad.start();
  const rounds: ConfigurationRound[] = [];
  const orders = roundOrders(settings.configurations, settings.rounds);
  console.log(
    `opsbot scale bench: ${settings.rounds} rounds of ${settings.configurations.join(', ')}, order rotating, fresh processes (and a fresh Redis or SQLite file) each time; per configuration ${settings.warmup} warm-up runs, then ${settings.runs} measured runs × ${SCALE_TURNS_PER_RUN} model turns (3 system_stats calls + answer), the fake model answering in ${settings.delayMs} ms in its own process; tasks as signed Slack events, ${settings.inFlight} in flight, over ${settings.channels} channels; worker_concurrency ${settings.workerConcurrency}; ${cpus().length} CPUs, load average ${loadAtStart.map((v) => v.toFixed(2)).join(' ')}`,
  );
  try {
    for (const [index, order] of orders.entries()) {
      for (const configuration of order) {
        const result = await measureConfiguration(configuration, index + 1, settings, fake, load);
        rounds.push(result);
        console.log(formatRoundLine(result));
      }
    }
  } catch (error) {
    console.error(`\nBENCH FAILED: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  } finally {
    await load.close();
    await fake.stop();
  }
  const summaries = summarize(rounds, settings.configurations);
  const loadAtEnd = loadavg();
  console.log(`\n${formatScaleTable(summaries)}\n`);
  console.log(
    `${settings.runs} measured runs per configuration and round${settings.runs < 2_000 ? ` (fewer than the issue's 2,000: --runs ${settings.runs})` : ''}; min / median over ${settings.rounds} rounds (runs/s: min is the slowest round; times: min is the fastest); ratio = runs/s over sqlite-all's, min/min and median/median; errors = events not acked + runs unanswered + answers posted twice + model turns missing, all rounds; load average at end ${loadAtEnd.map((v) => v.toFixed(2)).join(' ')}`,
  );
  if (settings.resultsPath) {
    mkdirSync(dirname(settings.resultsPath), { recursive: true });
    const report = {
      bench: 'scale',
      startedAt: startedAt.toISOString(),
      finishedAt: new Date().toISOString(),
      machine: { cpus: cpus().length, loadAtStart, loadAtEnd, node: process.version },
      settings: { ...settings, resultsPath: undefined, turnsPerRun: SCALE_TURNS_PER_RUN },
      summary: summaries,
      rounds,
    };
    writeFileSync(settings.resultsPath, `${JSON.stringify(report, null, 2)}\n`);
    console.log(`wrote ${settings.resultsPath}`);
  }
  const errors = summaries.reduce((sum, summary) => sum + summary.errors, 0);
  return errors > 0 ? 1 : 0;
}
