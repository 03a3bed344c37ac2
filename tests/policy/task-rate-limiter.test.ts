// Per-person task rate limit: N per window across replicas, a clear refusal, and a fresh count next window.
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../agent/clock.js';
import { TaskRateLimiter } from '../../agent/policy/task-rate-limiter.js';
import { MemoryStore } from '../../agent/store/memory-store.js';

const U1 = { platform: 'slack', userId: 'U1' } as const;
const U2 = { platform: 'slack', userId: 'U2' } as const;

function setup(limit = 3) {
  // Start 20 s into a minute so the retry time is not a whole window.
  const clock = new ManualClock(Date.UTC(2026, 0, 1, 9, 0, 20));
  const store = new MemoryStore(clock);
  return { clock, store, limiter: new TaskRateLimiter(store, { limit, clock }) };
}

describe('TaskRateLimiter', () => {
  it('allows N tasks, then refuses with the time until the window resets', async () => {
    const { limiter } = setup(3);
    for (let index = 0; index < 3; index++) expect(await limiter.take(U1)).toEqual({ allowed: true });
    expect(await limiter.take(U1)).toEqual({
      allowed: false,
      retryAfterMs: 40_000,
      message:
        'You can start at most 3 tasks per minute, and you have reached that. Please try again in 40 s.',
    });
  });

  it('counts each person separately', async () => {
    const { limiter } = setup(1);
    expect(await limiter.take(U1)).toEqual({ allowed: true });
    expect((await limiter.take(U1)).allowed).toBe(false);
    expect(await limiter.take(U2)).toEqual({ allowed: true });
  });

  it('resets in the next window', async () => {
    const { limiter, clock } = setup(2);
    await limiter.take(U1);
    await limiter.take(U1);
    clock.advance(39_999);
    expect(await limiter.take(U1)).toMatchObject({ allowed: false, retryAfterMs: 1 });
    clock.advance(1);
    expect(await limiter.take(U1)).toEqual({ allowed: true });
  });

  it('shares one count between replicas and under concurrency', async () => {
    const { store, clock } = setup();
    const replicas = [
      new TaskRateLimiter(store, { limit: 4, clock }),
      new TaskRateLimiter(store, { limit: 4, clock }),
    ];
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, index) => replicas[index % 2]!.take(U1)),
    );
    expect(results.filter((result) => result.allowed)).toHaveLength(4);
  });

  it('reads the limit on every call, so a settings reload applies', async () => {
    const { store, clock } = setup();
    let limit = 1;
    const limiter = new TaskRateLimiter(store, { limit: () => limit, clock });
    await limiter.take(U1);
    expect((await limiter.take(U1)).allowed).toBe(false);
    limit = 2;
    expect((await limiter.take(U1)).allowed).toBe(true);
  });

  it('makes one claim per task, not one per task already started in the window', async () => {
    const { store, clock } = setup();
    let claims = 0;
    const claim = store.claim.bind(store);
    store.claim = (...args) => {
      claims += 1;
      return claim(...args);
    };
    const here = new TaskRateLimiter(store, { limit: 1_000, clock });
    for (let index = 0; index < 200; index++) expect((await here.take(U1)).allowed).toBe(true);
    expect(claims).toBe(200);
    // Another replica took slots meanwhile: this one skips each of them once, then is back to one claim a task.
    const other = new TaskRateLimiter(store, { limit: 1_000, clock });
    for (let index = 0; index < 50; index++) await other.take(U1);
    claims = 0;
    await here.take(U1);
    await here.take(U1);
    expect(claims).toBe(52);
  });
});
