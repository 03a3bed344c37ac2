// The MCP bench's figures inside a runner's process: a number of `echo` calls at a fixed number in flight, each
// call timed on its own, and the process's CPU over all of them (the server's is in its own process, not here).
import { collectGarbage, runPool } from '../measure.js';
import type { McpCaller } from './mcp-caller.js';

export interface PhaseFigures {
  calls: number;
  concurrency: number;
  p50Ms: number;
  p99Ms: number;
  /** This process's user+system CPU over the phase, per call. */
  cpuMsPerCall: number;
  callsPerS: number;
}

/** The value at quantile `q` of sorted values, nearest rank (no interpolation between two calls). */
export function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) throw new RangeError('quantile needs at least one value');
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
}

/** Unmeasured calls, so the JIT, the SDK's lazy paths and the store are warm. */
export async function warmCalls(caller: McpCaller, calls: number, concurrency: number): Promise<void> {
  await runPool(calls, concurrency, async (index) => {
    await caller.call(`warm-${index}`);
    return 1;
  });
}

export async function measurePhase(
  caller: McpCaller,
  options: { label: string; calls: number; concurrency: number },
): Promise<PhaseFigures> {
  // The warm-up's (or the last phase's) garbage would otherwise be collected on this phase's clock.
  collectGarbage();
  const latencies: number[] = [];
  const cpuBefore = process.cpuUsage();
  const wallBefore = performance.now();
  await runPool(options.calls, options.concurrency, async (index) => {
    const started = performance.now();
    await caller.call(`${options.label}-${index}`);
    latencies.push(performance.now() - started);
    return 1;
  });
  const wallMs = performance.now() - wallBefore;
  const cpu = process.cpuUsage(cpuBefore);
  latencies.sort((a, b) => a - b);
  return {
    calls: options.calls,
    concurrency: options.concurrency,
    p50Ms: quantile(latencies, 0.5),
    p99Ms: quantile(latencies, 0.99),
    cpuMsPerCall: (cpu.user + cpu.system) / 1000 / options.calls,
    callsPerS: (options.calls / wallMs) * 1000,
  };
}
