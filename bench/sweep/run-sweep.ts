// npm run bench -- sweep: one expiry-sweep pass with 10,000 waiting runs, through the wait-expiry index,
// against the sweep before it (its first pass and its later passes), on SQLite and on Redis.
import type { ChildProcess } from 'node:child_process';
import { fork } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createClient } from '@redis/client';
import {
  freePort,
  redisServerInstalled,
  startRedisServer,
  stopRedisServer,
} from '../../tests/redis-server.js';
import { roundOrders } from '../schedule.js';
import {
  type Configuration,
  type SweepJob,
  type SweepMeasurement,
  type SweepReply,
  splitConfiguration,
} from './sweep-job.js';
import { formatRoundLine, formatSweepTable, roundOf, type SweepRound, summarize } from './sweep-report.js';
import { readSweepSettings, SWEEP_USAGE, type SweepSettings } from './sweep-settings.js';

/** Issue 16: a sweep with 10,000 waiting runs takes at most this long. */
const GOAL_MS = 20;

const entry = fileURLToPath(new URL('./sweep-process.ts', import.meta.url));
const repoRoot = fileURLToPath(new URL('../..', import.meta.url));

export async function runSweepBench(args: string[]): Promise<number> {
  const settings = readSweepSettings(args);
  if (settings === 'help') {
    console.log(SWEEP_USAGE);
    return 0;
  }
  if ('problem' in settings) {
    console.error(`bench sweep: ${settings.problem}\n${SWEEP_USAGE}`);
    return 2;
  }
  const needsRedis = settings.configurations.some((name) => splitConfiguration(name).backend === 'redis');
  if (needsRedis && !redisServerInstalled()) {
    console.error(
      'bench sweep: redis-server is not installed (Debian: apt-get install redis-server); or --only sqlite/…',
    );
    return 2;
  }
  process.once('SIGINT', () => process.exit(130));
  const startedAt = new Date();
  const loadAtStart = loadavg();
  const directory = mkdtempSync(join(tmpdir(), 'opsbot-sweep-bench-'));
  const redis = needsRedis ? await startRedis() : undefined;
  console.log(
    `opsbot sweep bench: ${settings.rounds} rounds of ${settings.configurations.join(', ')}, order rotating, each in a fresh process over a fresh SQLite file or an emptied Redis; ${settings.waiting} runs waiting a day, ${settings.due} due at each pass; per process ${settings.warmup} warm-up passes, then ${settings.passes} measured; ${cpus().length} CPUs, load average ${loadAtStart.map((v) => v.toFixed(2)).join(' ')}`,
  );
  const rounds: SweepRound[] = [];
  try {
    for (const [index, order] of roundOrders(settings.configurations, settings.rounds).entries()) {
      for (const configuration of order) {
        const job = jobFor(configuration, settings, directory, redis?.url, index + 1);
        const result = roundOf(index + 1, await measureInFreshProcess(job));
        rounds.push(result);
        console.log(formatRoundLine(result));
        if (job.backend === 'redis') await redis!.flush();
        else rmSync(dirname(job.location), { recursive: true, force: true });
      }
    }
  } catch (error) {
    console.error(`\nBENCH FAILED: ${error instanceof Error ? error.message : String(error)}`);
    console.error('No figures are reported for broken runs.');
    return 1;
  } finally {
    await redis?.stop();
    rmSync(directory, { recursive: true, force: true });
  }
  const summaries = summarize(rounds, settings.configurations);
  const loadAtEnd = loadavg();
  console.log(`\n${formatSweepTable(summaries, GOAL_MS)}\n`);
  console.log(
    `ms per pass: each round's figure is one process's median over its ${settings.passes} passes; min and median over ${settings.rounds} rounds; ratio = old pass over the index pass on the same backend, min/min and median/median; load average at end ${loadAtEnd.map((v) => v.toFixed(2)).join(' ')}`,
  );
  if (settings.resultsPath) {
    mkdirSync(dirname(settings.resultsPath), { recursive: true });
    const report = {
      bench: 'sweep',
      goalMs: GOAL_MS,
      startedAt: startedAt.toISOString(),
      finishedAt: new Date().toISOString(),
      machine: { cpus: cpus().length, loadAtStart, loadAtEnd, node: process.version },
      settings: { ...settings, resultsPath: undefined },
      summary: summaries,
      rounds,
    };
    writeFileSync(settings.resultsPath, `${JSON.stringify(report, null, 2)}\n`);
    console.log(`wrote ${settings.resultsPath}`);
  }
  return 0;
}

function jobFor(
  configuration: Configuration,
  settings: SweepSettings,
  directory: string,
  redisUrl: string | undefined,
  round: number,
): SweepJob {
  const { backend, method } = splitConfiguration(configuration);
  const name = `${backend}-${method}-round${round}`;
  return {
    backend,
    method,
    waiting: settings.waiting,
    due: settings.due,
    warmup: settings.warmup,
    passes: settings.passes,
    // A directory of its own, so the WAL and shared-memory files go with it.
    location: backend === 'redis' ? redisUrl! : join(directory, name, 'opsbot.sqlite'),
    prefix: `bench-sweep:${name}:`,
  };
}

async function measureInFreshProcess(job: SweepJob): Promise<SweepMeasurement> {
  const child = fork(entry, [JSON.stringify(job)], {
    cwd: repoRoot,
    execArgv: ['--import', 'tsx', '--expose-gc'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    serialization: 'json',
  });
  let reply: SweepReply | undefined;
  child.once('message', (message) => {
    reply = message as SweepReply;
  });
  const exit = await new Promise<{ code: number | null }>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => resolve({ code }));
  });
  if (reply === undefined)
    throw new Error(`the ${job.backend}/${job.method} process ended (code ${exit.code}) without its figures`);
  if (!reply.ok) throw new Error(reply.error);
  return reply.measurement;
}

/** A redis-server of the bench's own, emptied between processes. */
async function startRedis(): Promise<{ url: string; flush(): Promise<void>; stop(): Promise<void> }> {
  const port = await freePort();
  const server: ChildProcess = await startRedisServer(port);
  const url = `redis://127.0.0.1:${port}`;
  const admin = createClient({ url });
  await admin.connect();
  return {
    url,
    flush: async () => {
      await admin.flushAll();
    },
    stop: async () => {
      admin.destroy();
      await stopRedisServer(server);
    },
  };
}
