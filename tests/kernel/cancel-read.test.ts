// A cancel does not wait for a slow read: the worker abandons it, and the run ends cancelled at once.
import { afterEach, describe, expect, it } from 'vitest';
import { alice, conversation, createHarness, type Harness, type TestRun } from './harness.js';

let harness: Harness;
afterEach(async () => harness?.close());

describe('cancelling a run in a slow read', () => {
  it('ends the run cancelled without waiting for the read to time out', async () => {
    harness = await createHarness({ model: false, kernel: { limits: { toolTimeoutMs: 60_000 } } });
    const runId = await harness.kernel.start({
      text: 'never_returns',
      principal: alice,
      conversation,
      engine: 'command',
    });
    for (let i = 0; i < 20 && harness.probe.count('never_returns') === 0; i++)
      await new Promise((r) => setImmediate(r));
    expect(harness.probe.count('never_returns')).toBe(1);
    const result = await harness.kernel.cancel(runId, alice);
    expect(result.message).toBe(`Cancelled ${runId}.`);
    const run = (await harness.kernel.settled(runId)) as TestRun;
    expect(run.status).toBe('cancelled');
  });
});
