// Runs a runner many times at a fixed concurrency and measures this process's CPU, wall time and RSS.
// It runs inside a runner's own process (runner-process.ts), so the process holds nothing but that runner.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { Runner } from './runners/runner.js';

export interface Measurement {
  runs: number;
  modelTurns: number;
  cpuUserMs: number;
  cpuSystemMs: number;
  wallMs: number;
  /** The process's RSS high-water mark from the OS (getrusage), warm-up included: the runner's whole life. */
  processPeakRssBytes: number;
  /** Highest RSS seen by a sampler every RSS_SAMPLE_MS during the measured runs only. */
  windowPeakRssBytes: number;
  endRssBytes: number;
}

export const RSS_SAMPLE_MS = 20;

/** Runs `count` tasks, at most `concurrency` at once; the first failure stops new work and is rethrown. */
export async function runPool(
  count: number,
  concurrency: number,
  task: (index: number) => Promise<number>,
): Promise<number> {
  let next = 0;
  let total = 0;
  let failure: unknown;
  const worker = async () => {
    while (failure === undefined && next < count) {
      const index = next++;
      try {
        // Not `total += await …`: that reads `total` before the await and loses the other workers' turns.
        const turns = await task(index);
        total += turns;
      } catch (error) {
        failure ??= error;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
  if (failure !== undefined) throw failure;
  return total;
}

/** Runs the runner unmeasured, so the JIT, the SDK's lazy modules and the connection pool are warm. */
export async function warmUp(
  runner: Runner,
  options: { warmup: number; concurrency: number },
): Promise<void> {
  await runPool(options.warmup, options.concurrency, (index) => runner.runOnce(`warmup-${index}`));
}

/** Measures `runs` runs of the runner; each run's label, and so its thread, is unique. */
export async function measureSegment(
  runner: Runner,
  options: { runs: number; concurrency: number },
): Promise<Measurement> {
  // Garbage left by the warm-up would otherwise be collected on the measured clock.
  collectGarbage();
  let peakRssBytes = process.memoryUsage.rss();
  const sampler = setInterval(() => {
    peakRssBytes = Math.max(peakRssBytes, process.memoryUsage.rss());
  }, RSS_SAMPLE_MS);
  const cpuBefore = process.cpuUsage();
  const wallBefore = performance.now();
  try {
    const modelTurns = await runPool(options.runs, options.concurrency, (index) =>
      runner.runOnce(`run-${index}`),
    );
    const wallMs = performance.now() - wallBefore;
    const cpu = process.cpuUsage(cpuBefore);
    const endRssBytes = process.memoryUsage.rss();
    return {
      runs: options.runs,
      modelTurns,
      cpuUserMs: cpu.user / 1000,
      cpuSystemMs: cpu.system / 1000,
      wallMs,
      // maxRSS is in kibibytes.
      processPeakRssBytes: process.resourceUsage().maxRSS * 1024,
      windowPeakRssBytes: Math.max(peakRssBytes, endRssBytes),
      endRssBytes,
    };
  } finally {
    clearInterval(sampler);
  }
}

let gc: (() => void) | undefined;

/** A full collection without needing --expose-gc on the runner process's command line. */
export function collectGarbage(): void {
  if (!gc) {
    setFlagsFromString('--expose-gc');
    gc = runInNewContext('gc') as () => void;
  }
  gc();
}
