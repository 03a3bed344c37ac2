// The store check on the ack path: no round trip while the store answered within a second, a ping otherwise.
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../agent/clock.js';
import { pingStore, recentlyReachable } from '../../bot/chat/store-reachability.js';

describe('recentlyReachable', () => {
  it('pings once, then lets requests through without pinging for a second', async () => {
    const clock = new ManualClock();
    let pings = 0;
    const check = recentlyReachable(
      {
        ping: async () => {
          pings += 1;
        },
      },
      clock,
    );
    await check();
    expect(pings).toBe(1);
    for (let i = 0; i < 100; i += 1) expect(check()).toBeUndefined();
    clock.advance(1_000);
    await check();
    expect(pings).toBe(2);
  });

  it('pings on every check while the store does not answer, sharing one ping between concurrent checks', async () => {
    const clock = new ManualClock();
    let pings = 0;
    let down = true;
    const check = recentlyReachable(
      {
        ping: async () => {
          pings += 1;
          if (down) throw new Error('Redis is unreachable');
        },
      },
      clock,
    );
    const [a, b] = [check(), check()];
    await expect(a).rejects.toThrow('unreachable');
    await expect(b).rejects.toThrow('unreachable');
    expect(pings).toBe(1);
    await expect(check()).rejects.toThrow('unreachable');
    expect(pings).toBe(2);
    down = false;
    await check();
    expect(check()).toBeUndefined();
    expect(pings).toBe(3);
  });

  it('pings again at the next check once another check of the same store (/readyz) found it down', async () => {
    const clock = new ManualClock();
    let pings = 0;
    let down = false;
    const store = {
      ping: async () => {
        pings += 1;
        if (down) throw new Error('Redis is unreachable');
      },
    };
    const check = recentlyReachable(store, clock);
    await check();
    expect(check()).toBeUndefined();
    down = true;
    await expect(pingStore(store)).rejects.toThrow('unreachable');
    // Within the same second: without the readiness failure, this check would have let the request through.
    await expect(check()).rejects.toThrow('unreachable');
    expect(pings).toBe(3);
  });
});
