// The recovery sweep: recovers once at start-up, then again on every tick until it stops.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { silentLogger } from '../../agent/logger.js';
import { RecoverySweep } from '../../bot/services/recovery-sweep.js';

afterEach(() => {
  vi.useRealTimers();
});

describe('RecoverySweep', () => {
  it('recovers at start, sweeps each interval, and stops sweeping when stopped', async () => {
    vi.useFakeTimers();
    const calls: string[] = [];
    const kernel = {
      async recover() {
        calls.push('recover');
        return { continued: 2, outcomeUnknown: 1 };
      },
    };
    const sweep = new RecoverySweep({ kernel, logger: silentLogger, intervalMs: 60_000 });
    await sweep.start();
    expect(sweep.recovered).toEqual({ continued: 2, outcomeUnknown: 1 });
    expect(calls).toEqual(['recover']);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(calls).toEqual(['recover', 'recover']);
    await sweep.stop();
    await vi.advanceTimersByTimeAsync(120_000);
    expect(calls).toHaveLength(2);
  });

  it('logs a failed sweep and sweeps again at the next tick', async () => {
    vi.useFakeTimers();
    const warnings: string[] = [];
    let failures = 1;
    let started = false;
    const kernel = {
      async recover() {
        if (started && failures-- > 0) throw new Error('store unreachable');
        started = true;
        return { continued: 0, outcomeUnknown: 0 };
      },
    };
    const logger = { ...silentLogger, warn: (fields: object) => void warnings.push(JSON.stringify(fields)) };
    const sweep = new RecoverySweep({ kernel, logger, intervalMs: 10_000 });
    await sweep.start();
    await vi.advanceTimersByTimeAsync(20_000);
    expect(warnings).toEqual([JSON.stringify({ err: 'store unreachable' })]);
    await sweep.stop();
  });
});
