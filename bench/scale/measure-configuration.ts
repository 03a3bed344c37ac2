// One configuration, one round: fresh bot processes (and a fresh Redis or SQLite file), warm-up runs, then the
// measured runs, with Redis's counters and every process's CPU time read around the measured runs only.
import { loadavg } from 'node:os';
import type { FakeModelProcess } from '../fake-model.js';
import { type Configuration, startCluster } from './cluster.js';
import { cpuMsOf } from './cpu-time.js';
import { perRun, type RedisPerRun, readRedisCounters } from './redis-stats.js';
import { SCALE_TURNS_PER_RUN } from './scale-model.js';
import type { ScaleSettings } from './scale-settings.js';
import type { SlackLoad } from './slack-load.js';

export interface ConfigurationRound {
  configuration: Configuration;
  round: number;
  runs: number;
  runsPerS: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  errors: { notAcked: number; unanswered: number; answeredTwice: number; modelRequestsMissing: number };
  /** CPU ms per measured run, by process (gateway, worker-1, all, redis-server, fake-model, bench). */
  cpuMsPerRun: Record<string, number>;
  redis: RedisPerRun | null;
  /** Slack Web API calls per measured run, by method. */
  slackCallsPerRun: Record<string, number>;
  loadAverage1mBefore: number;
}

export function percentile(sorted: readonly number[], fraction: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil(fraction * sorted.length) - 1)]!;
}

export async function measureConfiguration(
  configuration: Configuration,
  round: number,
  settings: ScaleSettings,
  fake: FakeModelProcess,
  load: SlackLoad,
): Promise<ConfigurationRound> {
  const loadAverage1mBefore = loadavg()[0]!;
  const cluster = await startCluster(configuration, {
    modelUrl: fake.baseURL,
    slackApiUrl: load.apiUrl,
    workerConcurrency: settings.workerConcurrency,
  });
  try {
    const batch = {
      gatewayUrl: cluster.gatewayUrl,
      inFlight: settings.inFlight,
      channels: settings.channels,
    };
    // Long enough for a slow machine, short enough that a stuck run fails the round instead of hanging it.
    const deadlineMs = 60_000;
    if (settings.warmup > 0) {
      const warm = await load.batch({ ...batch, runs: settings.warmup, deadlineMs });
      const lost = warm.errors.notAcked + warm.errors.unanswered;
      if (lost > 0)
        throw new Error(`${configuration}: ${lost} of ${settings.warmup} warm-up runs got no answer`);
    }
    const processes = [...cluster.pids, { name: 'fake-model', pid: fake.pid }];
    const cpuBefore = processes.map(({ pid }) => cpuMsOf(pid));
    const benchBefore = process.cpuUsage();
    const redisBefore = cluster.redisPort === null ? null : await readRedisCounters(cluster.redisPort);
    const requestsBefore = await fake.requestCount();
    const slackBefore = load.callsByMethod();

    const result = await load.batch({ ...batch, runs: settings.runs, deadlineMs });

    const redisAfter = cluster.redisPort === null ? null : await readRedisCounters(cluster.redisPort);
    const benchCpu = process.cpuUsage(benchBefore);
    const cpuMsPerRun: Record<string, number> = {};
    for (const [index, { name, pid }] of processes.entries())
      cpuMsPerRun[name] = (cpuMsOf(pid) - cpuBefore[index]!) / settings.runs;
    cpuMsPerRun.bench = (benchCpu.user + benchCpu.system) / 1000 / settings.runs;
    const slackCallsPerRun: Record<string, number> = {};
    for (const [method, calls] of Object.entries(load.callsByMethod()))
      slackCallsPerRun[method] = (calls - (slackBefore[method] ?? 0)) / settings.runs;
    const answered = result.latenciesMs.length;
    const served = (await fake.requestCount()) - requestsBefore;
    const sorted = [...result.latenciesMs].sort((a, b) => a - b);
    return {
      configuration,
      round,
      runs: settings.runs,
      runsPerS: answered / (result.wallMs / 1000),
      p50Ms: percentile(sorted, 0.5),
      p99Ms: percentile(sorted, 0.99),
      maxMs: sorted.at(-1) ?? Number.NaN,
      errors: {
        ...result.errors,
        // Every run must have reached the model for all its turns; fewer requests means a run cut short.
        modelRequestsMissing: Math.max(0, settings.runs * SCALE_TURNS_PER_RUN - served),
      },
      cpuMsPerRun,
      slackCallsPerRun,
      redis: redisBefore && redisAfter ? perRun(redisBefore, redisAfter, settings.runs) : null,
      loadAverage1mBefore,
    };
  } finally {
    await cluster.stop();
  }
}
