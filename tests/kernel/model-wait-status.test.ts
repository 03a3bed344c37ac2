// While a model call waits for this process's rate limit, the thread's status line says so and how many are ahead,
// and says the run works on once the call is sent.
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { OutboundMessage } from '../../agent/chat-port.js';
import { createOpenAIModelClient } from '../../agent/model/model-client.js';
import { ModelRateLimiter, rateLimitedModelClient } from '../../agent/model/model-rate-limit.js';
import { text } from '../fakes/openai-server.js';
import { ManualTimers } from '../manual-timers.js';
import { alice, conversation, createHarness, type Harness } from './harness.js';

let harness: Harness;
afterEach(async () => harness?.close());

/** Every text the run's one status message showed, in order. */
function statusLines(h: Harness): string[] {
  const posts = h.chat.posts.filter((post) => post.message.kind === 'status');
  expect(posts).toHaveLength(1);
  return [posts[0]!.message, ...posts[0]!.updates].map(
    (message: OutboundMessage) => (message as Extract<OutboundMessage, { kind: 'status' }>).text,
  );
}

describe('a model call waiting for the rate limit', () => {
  it('shows the wait and its place in line on the status line, then works on and finishes', async () => {
    harness = await createHarness();
    const timers = new ManualTimers();
    const limiter = new ModelRateLimiter({
      requestsPerSecond: 1,
      burst: 1,
      maxInFlight: 10,
      clock: harness.clock,
      timers,
    });
    const kernel = harness.newKernel({
      model: rateLimitedModelClient(
        createOpenAIModelClient({
          baseURL: harness.fake.baseURL,
          apiKey: 'sk-test',
          model: 'fake-model',
          timeoutMs: 2_000,
          maxRetries: 0,
        }),
        limiter,
      ),
    });
    // Other runs' calls: one took the bucket's only token, two wait ahead of this run's.
    (await limiter.acquire())();
    const ahead = [limiter.acquire(), limiter.acquire()];
    harness.fake.reply(text('The api is up.'));
    const runId = await kernel.start({ text: 'is the api up?', principal: alice, conversation });
    await vi.waitFor(() => expect(statusLines(harness).at(-1)).toMatch(/^Waiting/));
    expect(harness.fake.requests).toHaveLength(0);
    for (let second = 0; second < 3; second++) {
      harness.clock.advance(1_000);
      timers.fire();
    }
    for (const release of await Promise.all(ahead)) release();
    const run = await kernel.settled(runId);
    expect(run.status).toBe('finished');
    expect(statusLines(harness)).toEqual([
      'Working on it…',
      'Waiting for the model: rate limit (2 ahead)',
      'Working on it…',
      'Done',
    ]);
    expect(limiter.figures()).toMatchObject({ inFlight: 0, queued: 0 });
  });
});
