// The model rate limit: a token bucket and an in-flight cap on an injected clock and timers, slowed by 429s (from
// the real SDK against the fake server) and sped up by answers; a waiting call gives up with its signal.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ManualClock } from '../../agent/clock.js';
import { createOpenAIModelClient } from '../../agent/model/model-client.js';
import type { ModelWait } from '../../agent/model/model-port.js';
import { ModelRateLimiter, rateLimitedModelClient } from '../../agent/model/model-rate-limit.js';
import { type FakeOpenAIServer, startFakeOpenAIServer, status, text } from '../fakes/openai-server.js';
import { ManualTimers } from '../manual-timers.js';

let clock: ManualClock;
let timers: ManualTimers;
let fake: FakeOpenAIServer | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

function limiter(options: { requestsPerSecond: number; burst: number; maxInFlight: number }) {
  clock = new ManualClock();
  timers = new ManualTimers();
  return new ModelRateLimiter({ ...options, clock, timers });
}

/** Starts `count` acquisitions and records which were let through, and the waits they were told of. */
function line(rateLimiter: ModelRateLimiter, count: number, signal?: AbortSignal) {
  const admitted: number[] = [];
  const releases: (() => void)[] = [];
  const waits: ModelWait[] = [];
  const results = Array.from({ length: count }, (_, index) =>
    rateLimiter
      .acquire({ ...(signal ? { signal } : {}), onWaiting: (wait) => waits.push(wait) })
      .then((release) => {
        admitted.push(index);
        releases.push(release);
      }),
  );
  return { admitted, releases, waits, results };
}

/** Moves the injected clock on, then fires the limiter's wake-up timer. */
function pass(ms: number) {
  clock.advance(ms);
  timers.fire();
}

describe('the model rate limit', () => {
  it('lets the burst through at once, then at most the rate per second', async () => {
    const bucket = limiter({ requestsPerSecond: 2, burst: 3, maxInFlight: 100 });
    const calls = line(bucket, 8);
    await vi.waitFor(() => expect(calls.admitted).toEqual([0, 1, 2]));
    expect(calls.waits.map((wait) => [wait.queued, wait.reason])).toEqual([
      [0, 'rate'],
      [1, 'rate'],
      [2, 'rate'],
      [3, 'rate'],
      [4, 'rate'],
    ]);
    pass(999);
    await vi.waitFor(() => expect(calls.admitted).toHaveLength(4));
    pass(1);
    await vi.waitFor(() => expect(calls.admitted).toHaveLength(5));
    // Two a second, and no more however long the timer took to fire.
    pass(1000);
    await vi.waitFor(() => expect(calls.admitted).toHaveLength(7));
    timers.fire();
    await Promise.resolve();
    expect(calls.admitted).toEqual([0, 1, 2, 3, 4, 5, 6]);
    expect(bucket.figures()).toMatchObject({ inFlight: 7, queued: 1 });
  });

  it('holds calls past the in-flight cap until one ends, whatever the bucket holds', async () => {
    const bucket = limiter({ requestsPerSecond: 100, burst: 100, maxInFlight: 2 });
    const calls = line(bucket, 4);
    await vi.waitFor(() => expect(calls.admitted).toEqual([0, 1]));
    expect(calls.waits).toEqual([
      { queued: 0, reason: 'in_flight' },
      { queued: 1, reason: 'in_flight' },
    ]);
    expect(timers.pending.size).toBe(0);
    calls.releases[0]!();
    calls.releases[0]!();
    await vi.waitFor(() => expect(calls.admitted).toEqual([0, 1, 2]));
    expect(bucket.figures()).toMatchObject({ inFlight: 2, queued: 1 });
  });

  it('halves the rate on a 429, holds every call for its Retry-After, and wins the rate back with answers', async () => {
    const bucket = limiter({ requestsPerSecond: 10, burst: 10, maxInFlight: 100 });
    bucket.throttled(3_000);
    expect(bucket.figures().rate).toBe(5);
    // Calls open at once meet the same overload: their 429s count once.
    bucket.throttled(undefined);
    expect(bucket.figures().rate).toBe(5);
    const calls = line(bucket, 2);
    await Promise.resolve();
    expect(calls.waits[0]).toEqual({ queued: 0, reason: 'server' });
    pass(2_999);
    await Promise.resolve();
    expect(calls.admitted).toEqual([]);
    // The burst was spent by the 429 and nothing was earned during the pause: then one call each 200 ms.
    pass(1);
    await Promise.resolve();
    expect(calls.admitted).toEqual([]);
    pass(200);
    await vi.waitFor(() => expect(calls.admitted).toEqual([0]));
    pass(199);
    await Promise.resolve();
    expect(calls.admitted).toEqual([0]);
    pass(1);
    await vi.waitFor(() => expect(calls.admitted).toEqual([0, 1]));
    clock.advance(1_000);
    bucket.throttled(undefined);
    expect(bucket.figures().rate).toBe(2.5);
    for (const expected of [3.5, 4.5, 5.5, 6.5, 7.5, 8.5, 9.5, 10, 10]) {
      bucket.succeeded();
      expect(bucket.figures().rate).toBeCloseTo(expected);
    }
  });

  it("gives a waiting call up when its signal aborts, with the signal's reason, and the next moves up", async () => {
    const bucket = limiter({ requestsPerSecond: 1, burst: 1, maxInFlight: 100 });
    const first = line(bucket, 1);
    const cancel = new AbortController();
    const cancelled = line(bucket, 1, cancel.signal);
    const after = line(bucket, 1);
    await vi.waitFor(() => expect(first.admitted).toEqual([0]));
    expect(after.waits).toEqual([{ queued: 1, reason: 'rate' }]);
    cancel.abort(new Error('the run was cancelled'));
    await expect(cancelled.results[0]).rejects.toThrow('the run was cancelled');
    expect(bucket.figures().queued).toBe(1);
    pass(1000);
    await vi.waitFor(() => expect(after.admitted).toEqual([0]));
    expect(cancelled.admitted).toEqual([]);
    await expect(bucket.acquire({ signal: AbortSignal.abort(new Error('gone')) })).rejects.toThrow('gone');
  });

  it("is slowed by the server's 429s through the real SDK, and an answer wins some rate back", async () => {
    fake = await startFakeOpenAIServer();
    const bucket = limiter({ requestsPerSecond: 10, burst: 10, maxInFlight: 100 });
    const client = rateLimitedModelClient(
      createOpenAIModelClient({
        baseURL: fake.baseURL,
        apiKey: 'sk-test',
        model: 'fake-model',
        timeoutMs: 2_000,
        maxRetries: 1,
        onThrottled: (retryAfterMs) => bucket.throttled(retryAfterMs),
      }),
      bucket,
    );
    fake.reply(status(429, { headers: { 'retry-after-ms': '5' } }), text('fine'));
    const reply = await client.complete({ messages: [{ role: 'user', content: 'hi' }], tools: [] });
    expect(reply.content).toBe('fine');
    expect(fake.requests).toHaveLength(2);
    // Halved to 5 by the 429, then 5 + 1 for the answer.
    expect(bucket.figures()).toEqual({ rate: 6, inFlight: 0, queued: 0 });
  });
});
