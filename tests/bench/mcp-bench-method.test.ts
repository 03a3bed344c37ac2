// The MCP bench's method: the arithmetic (quantiles, min and median over rounds, the overhead over bare-sdk, the
// settings), and each runner's caller against the real test server with a handful of calls. No timings asserted.
import { describe, expect, it } from 'vitest';
import { readMcpBenchSettings } from '../../bench/mcp/mcp-bench-settings.js';
import { MCP_RUNNER_NAMES, startCaller } from '../../bench/mcp/mcp-caller.js';
import type { McpProcessFigures } from '../../bench/mcp/mcp-job.js';
import { measurePhase, quantile } from '../../bench/mcp/mcp-measure.js';
import { overheads, summarize } from '../../bench/mcp/mcp-report.js';

function figures(p50Ms: number, cpuMsPerCall: number): McpProcessFigures {
  const phase = { calls: 10, concurrency: 1, p50Ms, p99Ms: p50Ms * 2, cpuMsPerCall, callsPerS: 1000 / p50Ms };
  return { startMs: 1000, sequential: phase, concurrent: { ...phase, concurrency: 10 }, rssMb: 80 };
}

describe('MCP bench: figures', () => {
  it('takes the nearest-rank quantile, so a p99 of 100 calls is the 99th, not the slowest', () => {
    const values = Array.from({ length: 100 }, (_, index) => index + 1);
    expect(quantile(values, 0.5)).toBe(50);
    expect(quantile(values, 0.99)).toBe(99);
    expect(quantile([7], 0.99)).toBe(7);
    expect(() => quantile([], 0.5)).toThrow(RangeError);
  });

  it('gives min and median over rounds, and the overhead over bare-sdk as min − min and median − median', () => {
    const summary = summarize({
      'bare-sdk': [figures(0.4, 0.2), figures(0.5, 0.3), figures(0.3, 0.25)],
      'opsbot-tool': [figures(0.6, 0.4), figures(0.9, 0.5), figures(0.7, 0.35)],
    });
    expect(summary['bare-sdk']?.['seq p50 ms']).toEqual({ min: 0.3, median: 0.4 });
    const seq = overheads(summary).find((o) => o.runner === 'opsbot-tool' && o.figure === 'seq p50 ms');
    expect(seq?.addedMs.min).toBeCloseTo(0.3);
    expect(seq?.addedMs.median).toBeCloseTo(0.3);
    expect(seq?.ratio.median).toBeCloseTo(0.7 / 0.4);
    expect(overheads(summary).some((o) => o.runner === 'bare-sdk')).toBe(false);
  });

  it('gives no overhead when bare-sdk was not run', () => {
    expect(overheads(summarize({ 'opsbot-tool': [figures(0.6, 0.4)] }))).toEqual([]);
  });
});

describe('MCP bench: settings', () => {
  it('writes the results file only for a full session of every runner', () => {
    const full = readMcpBenchSettings([]);
    expect(full).toMatchObject({ ok: true, settings: { rounds: 5, write: true, concurrency: 10 } });
    expect(readMcpBenchSettings(['--quick'])).toMatchObject({ ok: true, settings: { write: false } });
    expect(readMcpBenchSettings(['--only', 'bare-sdk'])).toMatchObject({
      ok: true,
      settings: { write: false },
    });
  });

  it('names every problem at once', () => {
    const outcome = readMcpBenchSettings(['--rounds', '0', '--only', 'bare-sdk,nope']);
    expect(outcome).toEqual({
      ok: false,
      problems: ['--only: no runner nope', '--rounds must be an integer ≥ 1'],
    });
  });
});

describe('MCP bench: each runner echoes through the real test server', () => {
  it.each(MCP_RUNNER_NAMES)(
    '%s makes its calls, one at a time and three in flight',
    async (name) => {
      const caller = await startCaller(name, 3);
      try {
        const phase = await measurePhase(caller, { label: 'smoke', calls: 6, concurrency: 3 });
        expect(phase).toMatchObject({ calls: 6, concurrency: 3 });
        expect(phase.p99Ms).toBeGreaterThanOrEqual(phase.p50Ms);
        await caller.call('once-more');
      } finally {
        await caller.close();
      }
    },
    60_000,
  );
});
