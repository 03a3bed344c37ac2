// The expiry sweep: recovers once at start-up, then expires and recovers on every tick until it stops.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { silentLogger } from '../../agent/logger.js';
import { ExpirySweep } from '../../bot/services/expiry-sweep.js';

afterEach(() => {
  vi.useRealTimers();
});

describe('ExpirySweep', () => {
  it('recovers at start, sweeps each interval, and stops sweeping when stopped', async () => {
    vi.useFakeTimers();
    const calls: string[] = [];
    const kernel = {
      async expireWaiting() {
        calls.push('expire');
      },
      async recover() {
        calls.push('recover');
        return { continued: 2, outcomeUnknown: 1 };
      },
    };
    const sweep = new ExpirySweep({ kernel, logger: silentLogger, intervalMs: 60_000 });
    await sweep.start();
    expect(sweep.recovered).toEqual({ continued: 2, outcomeUnknown: 1 });
    expect(calls).toEqual(['recover']);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(calls).toEqual(['recover', 'expire', 'recover']);
    await sweep.stop();
    await vi.advanceTimersByTimeAsync(120_000);
    expect(calls).toHaveLength(3);
  });

  it('logs a failed sweep and sweeps again at the next tick', async () => {
    vi.useFakeTimers();
    const warnings: string[] = [];
    let failures = 1;
    const kernel = {
      async expireWaiting() {
        if (failures-- > 0) throw new Error('store unreachable');
      },
      recover: async () => ({ continued: 0, outcomeUnknown: 0 }),
    };
    const logger = { ...silentLogger, warn: (fields: object) => void warnings.push(JSON.stringify(fields)) };
    const sweep = new ExpirySweep({ kernel, logger, intervalMs: 10_000 });
    await sweep.start();
    await vi.advanceTimersByTimeAsync(20_000);
    expect(warnings).toEqual([JSON.stringify({ err: 'store unreachable' })]);
    await sweep.stop();
  });
});
