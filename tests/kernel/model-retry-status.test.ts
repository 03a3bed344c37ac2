// While a model call is retried, the thread's status line says so, honestly, on the same message.
import { afterEach, describe, expect, it } from 'vitest';
import type { OutboundMessage } from '../../agent/chat-port.js';
import { createOpenAIModelClient } from '../../agent/model/model-client.js';
import { hang, status, text } from '../fakes/openai-server.js';
import { alice, conversation, createHarness, type Harness, runTask } from './harness.js';

let harness: Harness;
afterEach(async () => harness?.close());

/** A kernel whose model gives up on an attempt after 150 ms and makes three attempts in all. */
function impatientKernel(h: Harness) {
  return h.newKernel({
    model: createOpenAIModelClient({
      baseURL: h.fake.baseURL,
      apiKey: 'sk-test',
      model: 'fake-model',
      timeoutMs: 150,
      maxRetries: 2,
    }),
  });
}

/** Every text the run's one status message showed, in order. */
function statusLines(h: Harness): string[] {
  const posts = h.chat.posts.filter((post) => post.message.kind === 'status');
  expect(posts).toHaveLength(1);
  return [posts[0]!.message, ...posts[0]!.updates].map(
    (message: OutboundMessage) => (message as Extract<OutboundMessage, { kind: 'status' }>).text,
  );
}

describe('a model call being retried', () => {
  it('shows each retry and why on the status line, then works on and finishes', async () => {
    harness = await createHarness();
    const kernel = impatientKernel(harness);
    harness.fake.reply(hang(), status(503, { headers: { 'retry-after-ms': '1' } }), text('The api is up.'));
    const run = await runTask(kernel, { text: 'is the api up?', principal: alice, conversation });
    expect(run.status).toBe('finished');
    expect(harness.fake.requests).toHaveLength(3);
    expect(statusLines(harness)).toEqual([
      'Working on it…',
      'Waiting for the model: no answer within 150 ms, so trying again (attempt 2 of 3)',
      'Waiting for the model: the model server answered 503 Service Unavailable, so trying again (attempt 3 of 3)',
      'Working on it…',
      'Done',
    ]);
  });

  it('ends on the failure, with no retry line after it, when every attempt fails', async () => {
    harness = await createHarness();
    const kernel = impatientKernel(harness);
    const busy = { headers: { 'retry-after-ms': '1' } };
    harness.fake.reply(status(429, busy), status(429, busy), status(429, busy));
    const run = await runTask(kernel, { text: 'is the api up?', principal: alice, conversation });
    expect(run.status).toBe('failed');
    expect(statusLines(harness)).toEqual([
      'Working on it…',
      'Waiting for the model: the model server is limiting requests (429), so trying again (attempt 2 of 3)',
      'Waiting for the model: the model server is limiting requests (429), so trying again (attempt 3 of 3)',
      'Failed',
    ]);
  });
});
