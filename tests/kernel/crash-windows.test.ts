// Crashes between two store writes that the model-based test found: each leaves the store in a state that
// recovery, the expiry sweep or the next click must still bring to an end.
import { afterEach, describe, expect, it } from 'vitest';
import { storeKeys } from '../../agent/store/store-keys.js';
import { toolCalls } from '../fakes/openai-server.js';
import { alice, conversation, createHarness, type Harness } from './harness.js';
import { ProcessLife, storeOf } from './model/process-life.js';

let harness: Harness;
afterEach(async () => harness?.close());

const askWhich = toolCalls([{ name: 'ask_user', arguments: { question: 'Which service?' } }]);

describe('crash windows', () => {
  it('a run that crashed while saving its question still expires, and frees its thread', async () => {
    harness = await createHarness({ store: 'sqlite' });
    // The process dies just before it adds the run to the index of waiting runs.
    const life = new ProcessLife('first');
    life.dieBefore((method, args) => method === 'addToSet' && args[0] === storeKeys.waitingRuns);
    const first = harness.newKernel({ store: storeOf(life, harness.store) });
    harness.fake.respond(() => askWhich);
    const runId = await first.start({ text: 'restart the stuck one', principal: alice, conversation });
    await life.died;

    const second = harness.newKernel();
    // The dead process's lease on the run lapses.
    harness.clock.advance(10 * 60_000);
    await second.recover();
    await second.idle();
    expect((await second.get(runId)).status).toBe('waiting_for_user');
    harness.clock.advance(second.limits.questionTtlMs);
    expect(await second.expirySweep().sweep()).toBe(1);
    expect((await second.get(runId)).status).toBe('expired');
    expect(await harness.store.holder(storeKeys.threadLock(conversation))).toBeUndefined();
  });
});
