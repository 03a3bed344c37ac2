// One configuration of the scale bench as real processes: `node --import tsx bot/main.ts` (what `npm start`
// runs) as a gateway and workers on a fresh redis-server, or as one `all` process on a fresh SQLite file.
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort, startRedisServer, stopRedisServer } from '../../tests/redis-server.js';
import { SIGNING_SECRET } from './slack-load.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** Every process started here, killed if the bench itself exits early (a failure, Ctrl-C). */
const live = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of live) child.kill('SIGKILL');
});

export const CONFIGURATIONS = ['redis-1-worker', 'redis-2-workers', 'sqlite-all'] as const;
export type Configuration = (typeof CONFIGURATIONS)[number];

export interface Cluster {
  gatewayUrl: string;
  /** null on SQLite. */
  redisPort: number | null;
  /** The bot processes' and redis-server's pids, for their CPU time. */
  pids: Array<{ name: string; pid: number }>;
  stop(): Promise<void>;
}

function settingsYaml(workerConcurrency: number): string {
  return [
    'limits:',
    '  model_retries: 0',
    `  worker_concurrency: ${workerConcurrency}`,
    'permissions:',
    '  default_role: viewer',
    '  tasks_per_minute: 1000000',
    // The default pace (10 model requests a second per process) would cap every configuration at 2.5 runs/s of
    // 4 turns: the bench measures the bot's own plumbing, against a fake model that takes any rate.
    'model:',
    '  rate_limit:',
    `    requests_per_second: 10000`,
    `    burst: 10000`,
    `    max_in_flight: ${Math.max(32, workerConcurrency)}`,
    '',
  ].join('\n');
}

export async function startCluster(
  configuration: Configuration,
  options: { modelUrl: string; slackApiUrl: string; workerConcurrency: number },
): Promise<Cluster> {
  const dir = mkdtempSync(join(tmpdir(), 'opsbot-bench-scale-'));
  writeFileSync(join(dir, 'opsbot.yaml'), settingsYaml(options.workerConcurrency));
  const onRedis = configuration !== 'sqlite-all';
  const redisPort = onRedis ? await freePort() : null;
  const redis = redisPort === null ? null : await startRedisServer(redisPort);
  if (redis) {
    live.add(redis);
    redis.once('exit', () => live.delete(redis));
  }
  const gatewayPort = await freePort();
  const children: Array<{ name: string; child: ChildProcess }> = [];

  async function start(name: string, role: 'gateway' | 'worker' | 'all', port: number) {
    const child = spawn(process.execPath, ['--import', 'tsx', 'bot/main.ts'], {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        NODE_ENV: 'production',
        OPSBOT_ROLE: role,
        OPSBOT_CONFIG: join(dir, 'opsbot.yaml'),
        OPSBOT_STORE_URL: onRedis
          ? `redis://127.0.0.1:${redisPort}`
          : `sqlite://${join(dir, name, 'opsbot.sqlite')}`,
        OPSBOT_DATA_DIR: join(dir, name),
        PORT: String(port),
        OPENAI_BASE_URL: options.modelUrl,
        OPENAI_API_KEY: 'sk-bench',
        OPENAI_MODEL: 'fake-model',
        SLACK_BOT_TOKEN: 'xoxb-bench-scale',
        SLACK_SIGNING_SECRET: SIGNING_SECRET,
        SLACK_API_URL: options.slackApiUrl,
        LOG_LEVEL: 'info', // the default, as deployed
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push({ name, child });
    live.add(child);
    child.once('exit', () => live.delete(child));
    let printed = '';
    const collect = (chunk: Buffer) => {
      // Keep the tail only: a long bench must not hold every log line.
      printed = (printed + chunk.toString('utf8')).slice(-20_000);
    };
    child.stdout!.on('data', collect);
    child.stderr!.on('data', collect);
    const started = Date.now();
    while (!printed.includes('opsbot is running')) {
      if (child.exitCode !== null) throw new Error(`${name} exited ${child.exitCode}:\n${printed}`);
      if (Date.now() - started > 60_000) throw new Error(`${name} did not start in 60 s:\n${printed}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  if (configuration === 'sqlite-all') {
    await start('all', 'all', gatewayPort);
  } else {
    await start('gateway', 'gateway', gatewayPort);
    await start('worker-1', 'worker', 0);
    if (configuration === 'redis-2-workers') await start('worker-2', 'worker', 0);
  }
  return {
    gatewayUrl: `http://127.0.0.1:${gatewayPort}`,
    redisPort,
    pids: [
      ...children.map(({ name, child }) => ({ name, pid: child.pid! })),
      ...(redis ? [{ name: 'redis-server', pid: redis.pid! }] : []),
    ],
    async stop() {
      for (const { child } of children) {
        if (child.exitCode === null && child.signalCode === null) {
          child.kill('SIGKILL');
          await once(child, 'exit');
        }
      }
      if (redis) await stopRedisServer(redis);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
