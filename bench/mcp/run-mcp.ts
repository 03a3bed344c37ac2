// npm run bench -- mcp: what opsbot adds to one MCP tool call. The test MCP server's `echo` over stdio, called by
// the bare MCP SDK client (the floor), by opsbot's MCP tool without the kernel, and by whole opsbot runs through the
// Kernel's command engine (MemoryStore, SQLite). Each (runner, round) is a fresh process, the order rotating; per
// process a warm-up, then sequential calls and calls 10 in flight. Min and median over rounds, and the overhead
// over bare-sdk measured in the same session. Figures are printed and written, never asserted in tests.
import { mkdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildBenchBundle } from '../runner-bundle.js';
import { roundOrders } from '../schedule.js';
import { MCP_USAGE, readMcpBenchSettings } from './mcp-bench-settings.js';
import type { McpRunnerName } from './mcp-caller.js';
import type { McpProcessFigures } from './mcp-job.js';
import { measureMcpInFreshProcess } from './mcp-process.js';
import { formatMcpTables, overheads, summarize } from './mcp-report.js';

const RESULTS = fileURLToPath(new URL('../results/mcp.json', import.meta.url));

export async function runMcpBench(argv: string[]): Promise<number> {
  const outcome = readMcpBenchSettings(argv);
  if (outcome.ok === 'help') {
    console.log(MCP_USAGE);
    return 0;
  }
  if (!outcome.ok) {
    for (const problem of outcome.problems) console.error(`bench mcp: ${problem}`);
    console.error(MCP_USAGE);
    return 2;
  }
  const settings = outcome.settings;
  const load = loadavg();
  console.log(
    `opsbot MCP bench${settings.quick ? ' (quick)' : ''}: the test MCP server's echo over stdio; ${settings.rounds} rounds of ${settings.runners.join(', ')}, each a fresh ${settings.source ? 'tsx' : 'bundled'} process per round, order rotating; per process ${settings.warmup} warm-up calls, then ${settings.calls} sequential and ${settings.calls} with ${settings.concurrency} in flight; load average ${load.map((v) => v.toFixed(2)).join(' ')}`,
  );
  const bundle = settings.source
    ? null
    : await buildBenchBundle('mcp-runner-process', 'bench/mcp/mcp-runner-process.ts', 'mcp/');
  const results: Partial<Record<McpRunnerName, McpProcessFigures[]>> = Object.fromEntries(
    settings.runners.map((runner) => [runner, []]),
  );
  const rounds: { round: number; runner: McpRunnerName; figures: McpProcessFigures }[] = [];
  try {
    for (const [round, order] of roundOrders(settings.runners, settings.rounds).entries()) {
      for (const runner of order) {
        const figures = await measureMcpInFreshProcess(
          { runner, warmup: settings.warmup, calls: settings.calls, concurrency: settings.concurrency },
          bundle,
        );
        results[runner]?.push(figures);
        rounds.push({ round: round + 1, runner, figures });
        const { sequential: s, concurrent: c } = figures;
        console.log(
          `  round ${round + 1} ${runner.padEnd(18)} seq p50 ${s.p50Ms.toFixed(3)} p99 ${s.p99Ms.toFixed(3)} ms CPU ${s.cpuMsPerCall.toFixed(3)} ms/call | ×${c.concurrency} p50 ${c.p50Ms.toFixed(3)} p99 ${c.p99Ms.toFixed(3)} ms CPU ${c.cpuMsPerCall.toFixed(3)} ms/call ${c.callsPerS.toFixed(0)} calls/s | RSS ${figures.rssMb.toFixed(0)} MB, start ${figures.startMs.toFixed(0)} ms`,
        );
      }
    }
  } catch (error) {
    console.error(`\nBENCH FAILED: ${error instanceof Error ? error.message : String(error)}`);
    console.error('No figures are reported for broken runs.');
    return 1;
  }
  const summary = summarize(results);
  const loadAtEnd = loadavg();
  console.log(`\n${formatMcpTables(summary)}\n`);
  console.log(
    `min/median over ${settings.rounds} rounds; seq: one call at a time, par: ${settings.concurrency} in flight; CPU is the runner process's (user+system) per call, the server's own is apart; RSS after the measured calls; start: to the first call possible, the server's tsx start-up included; overhead min = min − min, median = median − median; load average at end ${loadAtEnd.map((v) => v.toFixed(2)).join(' ')}`,
  );
  if (settings.write) {
    const record = { at: new Date().toISOString(), ...settings, loadAtStart: load, loadAtEnd };
    mkdirSync(dirname(RESULTS), { recursive: true });
    writeFileSync(
      RESULTS,
      `${JSON.stringify({ ...record, summary, overheads: overheads(summary), rounds }, null, 2)}\n`,
    );
    console.log(`wrote ${RESULTS}`);
  } else {
    console.log('results file left as it was (--quick, --only or --no-write)');
  }
  return 0;
}
