// One bench session: each (round, runner) pair in its own fresh process, in rotated order, on one fake model.
import { loadavg } from 'node:os';
import type { FakeModelProcess } from './fake-model.js';
import { measureInFreshProcess } from './fresh-process.js';
import type { Measurement } from './measure.js';
import { buildRunnerBundle } from './runner-bundle.js';
import { BrokenRunError, type RunnerName } from './runners/runner.js';
import { roundOrders } from './schedule.js';
import { TURNS_PER_RUN } from './scripted-run.js';
import type { BenchSettings } from './settings.js';

export interface ProcessResult {
  /** 1-based, as printed. */
  round: number;
  /** 1-based place in its round's order. */
  position: number;
  runner: RunnerName;
  /** The machine's 1-minute load average just before the process started; the bench itself adds about 2. */
  loadAverage1m: number;
  measurement: Measurement;
}

export interface SessionResult {
  orders: RunnerName[][];
  processes: ProcessResult[];
}

export async function runSession(
  settings: BenchSettings,
  fake: FakeModelProcess,
  onProcess: (result: ProcessResult) => void,
): Promise<SessionResult> {
  const orders = roundOrders(settings.runners, settings.rounds);
  const processes: ProcessResult[] = [];
  // Built once per session, so every process of it runs the same code.
  const bundle = settings.source ? null : await buildRunnerBundle();
  for (const [roundIndex, order] of orders.entries()) {
    for (const [positionIndex, runner] of order.entries()) {
      const round = roundIndex + 1;
      const loadAverage1m = loadavg()[0]!;
      const requestsBefore = await fake.requestCount();
      const measurement = await measureInFreshProcess(
        {
          runner,
          baseURL: fake.baseURL,
          warmup: settings.warmup,
          runs: settings.runs,
          concurrency: settings.concurrency,
        },
        { bundle, profileDir: settings.profileDir, profileName: `${runner}-round${round}.cpuprofile` },
      );
      // The runner counted its own turns; the fake's count proves they really reached a model.
      const served = (await fake.requestCount()) - requestsBefore;
      const expected = (settings.warmup + settings.runs) * TURNS_PER_RUN;
      if (served !== expected) {
        throw new BrokenRunError(
          `${runner} (round ${round}): the fake model served ${served} requests; warm-up and measured runs need ${expected}`,
        );
      }
      const result = { round, position: positionIndex + 1, runner, loadAverage1m, measurement };
      processes.push(result);
      onProcess(result);
    }
  }
  return { orders, processes };
}
