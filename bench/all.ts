// npm run bench -- all: every issue 16 bench in turn, each in its own process, then one table of the goals read
// back from their results files (`--table`: only the table). The scale-out bench, issue 15's, runs on its own.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const MODES = ['', 'concurrent', 'startup', 'ack', 'prompts', 'sweep'];

// biome-ignore lint/suspicious/noExplicitAny: results files read back for a printed table only.
type Json = Record<string, any>;
const results = (name: string): Json =>
  JSON.parse(readFileSync(`${ROOT}bench/results/${name}.json`, 'utf8')) as Json;
const pair = (v: { min: number; median: number }, digits: number) =>
  `${v.min.toFixed(digits)} / ${v.median.toFixed(digits)}`;

/** `--table` prints the goals from the results files as they are, running nothing. */
export async function runAllBenches(argv: string[]): Promise<number> {
  const failed: string[] = [];
  for (const mode of argv.includes('--table') ? [] : MODES) {
    console.log(`\n=== npm run bench${mode ? ` -- ${mode}` : ''}`);
    const run = spawnSync(process.execPath, ['--import', 'tsx', 'bench/run.ts', ...(mode ? [mode] : [])], {
      cwd: ROOT,
      stdio: 'inherit',
    });
    // A missed goal exits 1 and still writes its figures; a broken bench writes none.
    if (run.status !== 0 && run.status !== 1) failed.push(mode || 'kernel');
  }
  console.log('\n=== issue 16 goals, from bench/results/*.json');
  for (const line of goalLines()) console.log(line);
  if (failed.length > 0) console.log(`\nbroken benches (no figures): ${failed.join(', ')}`);
  return failed.length > 0 ? 2 : 0;
}

function goalLines(): string[] {
  const lines: string[] = [];
  const row = (what: string, figure: string, goal: string, met: boolean) =>
    lines.push(`${what.padEnd(48)} ${figure.padEnd(34)} ${goal.padEnd(14)} ${met ? 'met' : 'NOT met'}`);
  lines.push(`${'what'.padEnd(48)} ${'figure (min / median)'.padEnd(34)} ${'goal'.padEnd(14)}`);
  const kernel = results('kernel');
  row(
    'kernel-sqlite CPU per turn, × bare',
    pair(kernel.summary['kernel-sqlite'].cpu_ratio_to_bare, 2),
    '≤ 1.2×',
    kernel.summary['kernel-sqlite'].cpu_ratio_to_bare.median <= 1.2,
  );
  const own = kernel.target.ratio_to_same_transport_median;
  if (own != null)
    lines.push(
      `${"  the same, × bare on the kernel's fetch".padEnd(48)} ${`${kernel.target.ratio_to_same_transport_min} / ${own}`.padEnd(34)} (the kernel's own work; no goal)`,
    );
  const ownMs = kernel.target.own_cpu_ms_per_turn_median;
  if (ownMs != null)
    row(
      "  the kernel's own CPU per turn, ms",
      `${kernel.target.own_cpu_ms_per_turn_min} / ${ownMs}`,
      `≤ ${kernel.target.own_work_guard_ms} ms (guard)`,
      ownMs <= kernel.target.own_work_guard_ms,
    );
  const concurrent = results('concurrent');
  const sqlite = concurrent.rows.find((r: Json) => r.runner === 'kernel-sqlite');
  row('1,000 runs at once, wall × bare', pair(sqlite.ratio, 2), '≤ 1.2×', sqlite.ratio.median <= 1.2);
  for (const r of results('startup').rows.filter((r: Json) => r.goal_ms))
    row(`${r.name}, ms`, pair(r.ms, 0), `≤ ${r.goal_ms} ms`, r.met);
  const ack = results('ack');
  const gateway = ack.summary['opsbot-gateway'].p99_ms;
  const bolt = ack.summary['plain-bolt'].p99_ms;
  row(
    'gateway ack p99 at 200 events/s, × plain Bolt',
    pair({ min: gateway.min / bolt.min, median: gateway.median / bolt.median }, 2),
    '≤ 2×',
    ack.goal.met,
  );
  for (const s of results('sweep').summary.filter((s: Json) => s.configuration.endsWith('/index')))
    row(
      `sweep pass, 10,000 waiting (${s.configuration.split('/')[0]}), ms`,
      pair(s.passMs, 2),
      '≤ 20 ms',
      s.passMs.median <= 20,
    );
  const prompts = results('prompts');
  const shipped = prompts.rows.find((r: Json) => String(r.name).includes('shipped'));
  row(
    'uncached prompt tokens, 20-step run, of naive',
    `${(100 * shipped.uncachedVsNaive).toFixed(1)} % (deterministic)`,
    '≤ 50 %',
    prompts.goalMet,
  );
  return lines;
}
