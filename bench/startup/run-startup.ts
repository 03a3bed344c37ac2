// npm run bench -- startup: how long opsbot takes to start, from spawning `node`, against plain node baselines.
// Every measurement is a fresh process; one unmeasured warm-up of each command first (disk cache), then rounds in
// rotating order; min and median per command, and the ratio to its baseline.
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type MinMedian, minMedian } from '../stats.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const RESULTS = join(ROOT, 'bench/results/startup.json');

interface Command {
  name: string;
  /** What is measured: until /healthz answers 200, or until the process exits 0. */
  until: 'healthz' | 'exit';
  argv: string[];
  env?: NodeJS.ProcessEnv;
  /** The row this one is compared with. */
  baseline?: string;
}

const PLAIN_HTTP =
  "require('node:http').createServer((q, s) => s.end('ok')).listen(Number(process.env.PORT), '127.0.0.1')";

/**
 * `npm start` and `opsbot` as they ship (bin/start.js and bin/opsbot.js: the bundle in dist/), the server without
 * Node's compile cache, and both from the TypeScript sources through tsx, the other way opsbot could run.
 */
const COMMANDS: Command[] = [
  { name: 'node http server', until: 'healthz', argv: ['-e', PLAIN_HTTP] },
  { name: 'opsbot start (bundle)', until: 'healthz', argv: ['bin/start.js'], baseline: 'node http server' },
  {
    name: 'opsbot start (bundle, no compile cache)',
    until: 'healthz',
    argv: ['bin/start.js'],
    env: { NODE_DISABLE_COMPILE_CACHE: '1' },
    baseline: 'node http server',
  },
  {
    name: 'opsbot start (tsx sources)',
    until: 'healthz',
    argv: ['--import', 'tsx', 'bot/main.ts'],
    baseline: 'node http server',
  },
  { name: 'node -e 0', until: 'exit', argv: ['-e', '0'] },
  {
    name: 'opsbot run system_stats (bundle)',
    until: 'exit',
    argv: ['bin/opsbot.js', 'run', 'system_stats'],
    baseline: 'node -e 0',
  },
  {
    name: 'opsbot run system_stats (tsx sources)',
    until: 'exit',
    argv: ['--import', 'tsx', 'bot/cli/main.ts', 'run', 'system_stats'],
    baseline: 'node -e 0',
  },
];

/** How long a warm-up start lives once ready: time to write its compile cache, as a first start does. */
const WARM_UP_LINGER_MS = 500;

export async function runStartupBench(argv: string[]): Promise<number> {
  const rounds = Number(argv[argv.indexOf('--rounds') + 1]) || 7;
  const build = spawnSync(process.execPath, ['bin/build.js'], { cwd: ROOT, stdio: 'inherit' });
  if (build.status !== 0) return 1;
  const version = spawnSync(process.execPath, ['bin/opsbot.js', '--version'], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  const program = /^program: (.*)$/m.exec(version.stdout)?.[1] ?? 'unknown';
  const load = loadavg();
  console.log(
    `opsbot start-up bench: ${rounds} rounds, each command in a fresh process, order rotating, one warm-up each; load average ${load.map((v) => v.toFixed(2)).join(' ')}\nprogram: ${program}`,
  );
  const times = new Map<string, number[]>(COMMANDS.map((command) => [command.name, []]));
  for (const command of COMMANDS) await measure(command, true);
  for (let round = 0; round < rounds; round += 1) {
    const order = COMMANDS.map((_, i) => COMMANDS[(i + round) % COMMANDS.length]!);
    for (const command of order) times.get(command.name)!.push(await measure(command));
  }
  const rows = COMMANDS.map((command) => {
    const own = minMedian(times.get(command.name)!);
    const base = command.baseline ? minMedian(times.get(command.baseline)!) : undefined;
    return {
      name: command.name,
      ms: own,
      ...(base && command.baseline
        ? { baseline: command.baseline, ratio: { min: own.min / base.min, median: own.median / base.median } }
        : {}),
    };
  });
  console.log(`\n${'command'.padEnd(40)} ${'min ms'.padStart(8)} ${'median ms'.padStart(10)}  vs baseline`);
  for (const row of rows) {
    const ratio = row.ratio ? `${fmt(row.ratio)} × ${row.baseline}` : 'baseline';
    console.log(
      `${row.name.padEnd(40)} ${row.ms.min.toFixed(0).padStart(8)} ${row.ms.median.toFixed(0).padStart(10)}  ${ratio}`,
    );
  }
  const after = loadavg()
    .map((v) => v.toFixed(2))
    .join(' ');
  mkdirSync(dirname(RESULTS), { recursive: true });
  writeFileSync(
    RESULTS,
    `${JSON.stringify({ at: new Date().toISOString(), rounds, program, load_average: load, load_average_after: after, rows }, null, 2)}\n`,
  );
  console.log(`\nmin and median over ${rounds} rounds; load average now ${after}; wrote ${RESULTS}`);
  return 0;
}

function fmt(ratio: MinMedian): string {
  return `${ratio.min.toFixed(2)}/${ratio.median.toFixed(2)}`;
}

/**
 * Milliseconds from spawning node until the command is ready (healthz) or done (exit 0). A warm-up server lingers
 * before it is killed, so that it writes its compile cache.
 */
async function measure(command: Command, warmUp = false): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'opsbot-startup-'));
  const port = await freePort();
  const env = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    PORT: String(port),
    OPSBOT_DATA_DIR: dir,
    OPSBOT_STORE_URL: `sqlite://${join(dir, 'opsbot.sqlite')}`,
    LOG_LEVEL: 'warn',
    ...command.env,
  };
  const started = performance.now();
  const child = spawn(process.execPath, command.argv, { cwd: ROOT, env, stdio: 'ignore' });
  try {
    if (command.until === 'exit') {
      const [code] = await once(child, 'exit');
      if (code !== 0) throw new Error(`${command.name} exited ${code}`);
      return performance.now() - started;
    }
    for (;;) {
      if (child.exitCode !== null)
        throw new Error(`${command.name} exited ${child.exitCode} before /healthz`);
      const ok = await fetch(`http://127.0.0.1:${port}/healthz`).then(
        (response) => response.ok,
        () => false,
      );
      if (ok) {
        const elapsed = performance.now() - started;
        if (warmUp) await new Promise((resolve) => setTimeout(resolve, WARM_UP_LINGER_MS));
        return elapsed;
      }
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
  } finally {
    if (child.exitCode === null) {
      child.kill('SIGKILL');
      await once(child, 'exit');
    }
    rmSync(dir, { recursive: true, force: true });
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}
